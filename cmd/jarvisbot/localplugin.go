package main

import (
	"fmt"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/plugins/local"
)

// `plugins install DIR` (P1, S6, X1, X2): app.Installation.InstallPlugin
// stages, checks and installs the folder; this shows app.StagedView (its
// servers with their commands and addresses, its skills as written,
// control characters visible) and asks the owner.

// pluginConsent shows a staged plugin folder and, unless yes, asks
// whether to install it.
func (a *cli) pluginConsent(yes, trusted bool) func(local.Staged) (bool, error) {
	return func(st local.Staged) (bool, error) {
		fmt.Fprint(a.stdout, app.StagedView(st, trusted))
		if yes {
			return true, nil
		}
		return confirm(a, fmt.Sprintf("Install %s into %s? [y/N] ", st.Plugin.Manifest.Name, st.Dest), "jarvisbot plugins install "+st.Src+" --yes")
	}
}

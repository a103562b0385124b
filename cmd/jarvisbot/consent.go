package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/skills"
)

// The consent views (X2): before a skill or a local plugin is installed,
// the owner reads everything it brings, exactly as the file says it, and
// answers. Both views print through these functions, so that no text from
// outside reaches the terminal with its control characters live.

const rule = "----------------------------------------"

// showInFull writes text from outside between two rules, every control and
// invisible character written as an escape, and says when there were any.
func showInFull(w io.Writer, text string) {
	shown := visible.Text(text)
	if !strings.HasSuffix(shown, "\n") {
		shown += "\n"
	}
	fmt.Fprintf(w, "%s\n%s%s\n", rule, shown, rule)
	if n := visible.Count(text); n > 0 {
		fmt.Fprintf(w, "Careful: the text holds %d control or invisible character(s), shown above as \\x.., \\u.... escapes; in a terminal they could hide or rewrite what you read.\n", n)
	}
}

// showDropped lists the fields that will be ignored, each with why; prefix
// names the file they are in when there are several.
func showDropped(w io.Writer, prefix string, dropped []skills.Dropped) {
	for _, d := range dropped {
		fmt.Fprintf(w, "  - %s%s: %s\n", visible.Text(prefix), visible.Text(d.Field), d.Reason)
	}
}

// confirm asks question and reads the owner's answer from stdin: yes is
// "y" or "yes", anything else typed is no. When stdin ends with no answer
// at all (a script, a pipe, no terminal), nothing is taken as consent: the
// error names the command to run instead, so that a script never installs by
// accident nor believes it did.
func confirm(a *cli, question, instead string) (bool, error) {
	fmt.Fprint(a.stdout, question)
	var line string
	var err error
	if a.stdin != nil {
		line, err = bufio.NewReader(a.stdin).ReadString('\n')
	}
	answer := strings.ToLower(strings.TrimSpace(line))
	if answer == "" && (a.stdin == nil || err != nil) {
		fmt.Fprintln(a.stdout)
		return false, jarvisbot.Errorf(jarvisbot.EINVALID, "no answer came on stdin, so nothing was installed: answer y at the prompt, or after reading the text above run %s", visible.Text(instead))
	}
	if answer != "y" && answer != "yes" {
		fmt.Fprintln(a.stdout, "\nNot installed.")
		return false, nil
	}
	return true, nil
}

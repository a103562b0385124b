package main

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/visible"
)

// The consent views (X2) are written by app (InFull, DroppedList), the
// same for every door; the terminal's question is asked here.

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

// Package leftover removes the temporary file or folder a step leaves
// behind (a staged install, a config written through a rename) once it
// failed or moved its result into place. What cannot be removed is named
// in the error, for the owner to remove by hand, never left without a
// word.
//
// It serves X2 and X4: a failed step leaves nothing half-written.
package leftover

import (
	"fmt"
	"os"
)

// Remove removes path and everything in it; a path already gone is no
// error.
func Remove(path string) error {
	if err := os.RemoveAll(path); err != nil {
		return fmt.Errorf("the temporary %s is left behind (%w): remove it by hand", path, err)
	}
	return nil
}

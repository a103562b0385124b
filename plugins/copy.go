package plugins

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/sizelimit"
	"github.com/jarvisbot/jarvisbot/internal/visible"
)

// FolderLimit bounds the copy of a plugin folder: a manifest, a
// configuration, a few manuals, perhaps a bundled server.
func FolderLimit() sizelimit.Limit {
	return sizelimit.Limit{What: "a plugin folder", Max: 256 << 20, Hint: "name a large server in mcp.json (e.g. run with npx) instead of bundling it"}
}

// CopyFolder copies the regular files and folders of src into dst,
// which exists and is empty. It reads through an os.Root, so a file
// swapped for a link after validation cannot lead out of src; links are
// not copied. The whole folder is measured before anything is copied, and
// each file is copied only up to the size it had then.
func CopyFolder(src, dst string) error {
	root, err := os.OpenRoot(src)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "plugin folder %s cannot be opened: %w", visible.Text(src), err)
	}
	defer root.Close()
	type file struct {
		rel  string
		size int64
		exec bool
	}
	var dirs []string
	var files []file
	var total int64
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case p == ".":
			return nil
		case d.IsDir():
			dirs = append(dirs, p)
			return nil
		case !d.Type().IsRegular():
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		total += fi.Size()
		files = append(files, file{rel: p, size: fi.Size(), exec: fi.Mode()&0o100 != 0})
		return nil
	})
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "read plugin folder %s: %w", visible.Text(src), err)
	}
	if err := FolderLimit().Check(src, total); err != nil {
		return err
	}
	for _, d := range dirs {
		if err := os.Mkdir(filepath.Join(dst, filepath.FromSlash(d)), 0o700); err != nil {
			return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "copy plugin folder %s: %w", visible.Text(src), err)
		}
	}
	for _, f := range files {
		if err := copyFile(root, f.rel, filepath.Join(dst, filepath.FromSlash(f.rel)), f.size, f.exec); err != nil {
			return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "copy %s of plugin folder %s: %w", f.rel, visible.Text(src), err)
		}
	}
	return nil
}

// copyFile copies at most size bytes of rel; a bundled program stays
// executable (by the owner only).
func copyFile(root *os.Root, rel, dst string, size int64, exec bool) error {
	in, err := root.Open(rel)
	if err != nil {
		return err
	}
	defer in.Close()
	mode := os.FileMode(0o600)
	if exec {
		mode = 0o700
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, io.LimitReader(in, size))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

package server

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// uploadExt is the extension a file of each type gets on disk, whatever
// its name said.
var uploadExt = map[string]string{
	"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp",
	"application/pdf": ".pdf", "text/csv": ".csv", "text/tab-separated-values": ".tsv",
	"text/markdown": ".md", "application/json": ".json", "text/plain": ".txt",
}

// conversationDir is the directory of a conversation's uploads under the
// uploads directory: derived from its ID by SHA-256, so that no ID,
// whatever its characters, names a path outside it or another's.
func conversationDir(id string) string {
	sum := sha256.Sum256([]byte(id))
	return "c-" + hex.EncodeToString(sum[:12])
}

// diskName is the name an upload gets on disk: its ID, the letters,
// digits, _ and - of its name's stem, and the extension of its type.
// Nothing of the name the person gave can make it a path.
func diskName(up store.Upload) string {
	stem := strings.TrimSuffix(up.Name, path.Ext(up.Name))
	var b strings.Builder
	for _, r := range stem {
		switch {
		case b.Len() >= 48:
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := strings.Trim(b.String(), "_")
	if s == "" {
		s = "file"
	}
	return up.ID + "-" + s + uploadExt[up.MIMEType]
}

// writeUploadFile writes up's data as a new file under dir, in its
// conversation's directory, and returns the file's path. It works inside
// an [os.Root] of dir, so a symbolic link planted there cannot lead the
// write outside it, and it never replaces a file (O_EXCL).
func writeUploadFile(dir, conversation string, up store.Upload) (string, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return "", err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	sub := conversationDir(conversation)
	if err := root.MkdirAll(sub, 0o750); err != nil {
		return "", err
	}
	name := sub + "/" + diskName(up)
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640)
	if err != nil {
		return "", err
	}
	if _, err := f.Write(up.Data); err != nil {
		f.Close()
		_ = root.Remove(name)
		return "", err
	}
	if err := f.Close(); err != nil {
		_ = root.Remove(name)
		return "", fmt.Errorf("closing %s: %w", name, err)
	}
	return filepath.Join(dir, sub, diskName(up)), nil
}

// removeUploadFile removes a file writeUploadFile wrote, when its record
// could not be stored; "" is none.
func removeUploadFile(p string) {
	if p != "" {
		_ = os.Remove(p)
	}
}

package app

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/config"
)

// secretKeyFile is the key file created in the data directory when
// SWITCHBOARD_SECRET_KEY is not set.
const secretKeyFile = "secret.key"

// sealer encrypts configuration entries added at run time (AES-256-GCM):
// their secrets (env values, headers, bearer tokens, API keys) are at rest
// only in this form. The entry's kind and name are the additional data, so
// a sealed body copied onto another entry does not open.
type sealer struct{ aead cipher.AEAD }

// newSealer builds the sealer from key (base64 of 32 bytes) or, when key
// is empty, from the key file in dataDir, created 0600 at first use.
// Replicas sharing one PostgreSQL database need the same key: set
// SWITCHBOARD_SECRET_KEY on each.
func newSealer(key config.Secret, dataDir string) (*sealer, error) {
	raw := key.Value()
	if raw == "" {
		k, err := keyFile(filepath.Join(dataDir, secretKeyFile))
		if err != nil {
			return nil, err
		}
		raw = k
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(raw))
	if err != nil || len(b) != 32 {
		return nil, fmt.Errorf("the secret key (%s or %s in the data directory) must be base64 of 32 bytes; make one with `head -c32 /dev/urandom | base64`",
			config.SecretKeyEnv, secretKeyFile)
	}
	block, err := aes.NewCipher(b)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &sealer{aead: aead}, nil
}

// keyFile reads the key file at path, or creates it with a new random key
// (O_EXCL: of two processes creating it at once, one writes and the other
// reads what it wrote). A key file others may read is refused.
func keyFile(path string) (string, error) {
	for range 2 {
		b, err := os.ReadFile(path)
		if err == nil {
			if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
				return "", fmt.Errorf("the secret key file %s may be read by others (mode %v); run chmod 600 %s", path, fi.Mode().Perm(), path)
			}
			return string(b), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("reading the secret key: %w", err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return "", fmt.Errorf("creating the data directory for the secret key: %w", err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("creating the secret key file: %w", err)
		}
		k := make([]byte, 32)
		_, _ = rand.Read(k) // crypto/rand.Read never fails
		enc := base64.StdEncoding.EncodeToString(k)
		_, werr := f.WriteString(enc + "\n")
		if err := errors.Join(werr, f.Close()); err != nil {
			_ = os.Remove(path)
			return "", fmt.Errorf("writing the secret key file: %w", err)
		}
		return enc, nil
	}
	return "", fmt.Errorf("the secret key file %s appeared and vanished; try again", path)
}

// seal encrypts plain for the entry named ad: a random nonce, then the
// ciphertext.
func (s *sealer) seal(plain []byte, ad string) []byte {
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plain)+s.aead.Overhead())
	_, _ = rand.Read(nonce)
	return s.aead.Seal(nonce, nonce, plain, []byte(ad))
}

// open decrypts what seal made for the same ad.
func (s *sealer) open(sealed []byte, ad string) ([]byte, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n {
		return nil, errors.New("sealed entry too short")
	}
	plain, err := s.aead.Open(nil, sealed[:n], sealed[n:], []byte(ad))
	if err != nil {
		return nil, fmt.Errorf("cannot decrypt it: it was sealed with another key (set the same %s on every replica) or damaged", config.SecretKeyEnv)
	}
	return plain, nil
}

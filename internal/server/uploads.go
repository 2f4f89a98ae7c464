package server

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// uploadJSON is an upload as the API shows it (never its bytes).
type uploadJSON struct {
	ID       string    `json:"id"`
	Name     string    `json:"name"`
	MIMEType string    `json:"mimeType"`
	Size     int64     `json:"size"`
	SHA256   string    `json:"sha256"`
	Path     string    `json:"path,omitempty"`
	Created  time.Time `json:"createdAt"`
}

func toUpload(u store.Upload) uploadJSON {
	return uploadJSON{ID: u.ID, Name: u.Name, MIMEType: u.MIMEType, Size: u.Size, SHA256: u.SHA256, Path: u.Path, Created: u.CreatedAt}
}

// createUpload stores the request body as a file of the conversation for
// its tools: POST /api/v1/conversations/{id}/uploads?name=<file name>.
// The type is read from the bytes; the name is for display only.
func (s *Server) createUpload() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		u := mustUser(r)
		c, err := s.conversation(r.Context(), u, r.PathValue("id"))
		if err != nil {
			return err
		}
		name := r.URL.Query().Get("name")
		if err := checkUploadName(name); err != nil {
			return err
		}
		limit := s.opts.UploadMaxBytes
		data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return &Error{Status: http.StatusRequestEntityTooLarge, Code: "too_large", Msg: fmt.Sprintf("the upload is larger than %d bytes, the limit (uploads.maxBytes)", limit), Err: err}
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return &Error{Status: http.StatusRequestTimeout, Code: "body_timeout", Msg: "the upload did not arrive in time", Err: err}
			}
			return badRequest("reading the upload: %v", err)
		}
		mime, err := sniffUpload(data, name)
		if err != nil {
			return err
		}
		up := store.Upload{
			ID: "up_" + rand.Text(), ConversationID: c.ID, UserID: u.ID, Name: name,
			MIMEType: mime, Size: int64(len(data)), Data: data,
		}
		if s.opts.UploadDir != "" {
			if up.Path, err = writeUploadFile(s.opts.UploadDir, c.ID, up); err != nil {
				return fmt.Errorf("writing upload %s into the uploads directory: %w", up.ID, err)
			}
		}
		saved, err := s.store.Uploads.CreateUpload(r.Context(), up)
		if err != nil {
			removeUploadFile(up.Path)
			return err
		}
		writeJSON(w, http.StatusCreated, toUpload(saved))
		return nil
	}
}

// listUploads lists the uploads of a conversation the caller owns.
func (s *Server) listUploads() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, err := s.conversation(r.Context(), mustUser(r), r.PathValue("id"))
		if err != nil {
			return err
		}
		ups, err := s.store.Uploads.ListUploads(r.Context(), c.ID)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, list[uploadJSON]{Items: mapSlice(ups, toUpload)})
		return nil
	}
}

// maxMessageUploads bounds the uploads one message attaches.
const maxMessageUploads = 16

// uploadParts returns the parts a message carries for the uploads it
// attaches: for each, a note naming it for the model (its id for
// read_upload and, when written, its path), and for images the image. An
// upload of another conversation or another user is not found, in the
// same words as a missing one.
func (s *Server) uploadParts(ctx context.Context, u User, conv string, ids []string) ([]llm.Part, error) {
	if len(ids) > maxMessageUploads {
		return nil, badRequest("%d uploads attached; at most %d fit in one message", len(ids), maxMessageUploads)
	}
	var out []llm.Part
	for i, id := range ids {
		notFound := errorf(http.StatusNotFound, "not_found", "uploads[%d]: no upload %q in this conversation; upload the file to it first (POST /api/v1/conversations/%s/uploads)", i, id, conv)
		if !store.ValidUploadID(id) {
			return nil, notFound
		}
		up, err := s.store.Uploads.GetUpload(ctx, id)
		if err != nil {
			if e := classify(err); e.Status == http.StatusNotFound {
				return nil, notFound
			}
			return nil, err
		}
		if up.ConversationID != conv || up.UserID != u.ID {
			return nil, notFound
		}
		out = append(out, llm.TextPart(uploadNote(up)))
		if visionTypes[up.MIMEType] {
			out = append(out, llm.ImagePart(up.MIMEType, up.Data))
		}
	}
	return out, nil
}

// uploadNote tells the model about an attached upload and how its tools
// reach it.
func uploadNote(up store.Upload) string {
	how := fmt.Sprintf("read it with the read_upload tool (id %q)", up.ID)
	if up.Path != "" {
		how += fmt.Sprintf(", or as the file %s with a file tool", up.Path)
	}
	return fmt.Sprintf("[Attached file %q (%s, %d bytes), upload %s: %s.]", up.Name, up.MIMEType, up.Size, up.ID, how)
}

package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

//go:embed read_upload.md
var readUploadDoc string

// UploadSource reads the files people uploaded into conversations, for
// read_upload: [store.Uploads] has this method.
type UploadSource interface {
	// GetUpload returns the upload with id, its data included, or an
	// error wrapping store.ErrNotFound.
	GetUpload(ctx context.Context, id string) (store.Upload, error)
}

type readUploadArgs struct {
	ID     string `json:"id"`
	Offset int64  `json:"offset"`
	Limit  int    `json:"limit"`
}

func newReadUpload(src UploadSource) *tool {
	return &tool{
		info: tools.Info{
			Name:        nameReadUpload,
			Title:       "Read an uploaded file",
			Description: fmt.Sprintf(readUploadDoc, formatSize(outputDefaultLimit), formatSize(outputMaxLimit)),
			InputSchema: schema(fmt.Sprintf(`{"type":"object","properties":{`+
				`"id":{"type":"string","description":"Upload id from the message that attached the file (up_...)."},`+
				`"offset":{"type":"integer","minimum":0,"description":"Byte offset to start at, for text. Default 0."},`+
				`"limit":{"type":"integer","minimum":1,"maximum":%d,"description":"Bytes to return, for text. Default %d."}`+
				`},"required":["id"],"additionalProperties":false}`, outputMaxLimit, outputDefaultLimit)),
			Annotations: readOnly("Read an uploaded file"),
		},
		run: func(ctx context.Context, raw json.RawMessage) (*tools.Result, error) {
			var a readUploadArgs
			if err := decodeArgs(nameReadUpload, raw, &a); err != nil {
				return errResult(err), nil
			}
			u, err := findUpload(ctx, src, a.ID)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				return errResult(err), nil
			}
			return uploadResult(u, a)
		},
	}
}

// findUpload returns the upload id when it belongs to the user and the
// conversation of the call (tools.UserOf, tools.ConversationOf): another
// user's upload, or one from another conversation, is not found, in the
// same words as a missing one, so ids cannot be probed.
func findUpload(ctx context.Context, src UploadSource, id string) (store.Upload, error) {
	if !store.ValidUploadID(id) {
		return store.Upload{}, fmt.Errorf("id %q is malformed; copy the upload id (up_...) from the message that attached the file", id)
	}
	notFound := fmt.Errorf("no upload %q in this conversation; uploads are read only in the conversation they were uploaded to, and only by the person who uploaded them", id)
	u, err := src.GetUpload(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return store.Upload{}, notFound
	case err != nil:
		return store.Upload{}, fmt.Errorf("reading upload %q: %v", id, err)
	case u.UserID != tools.UserOf(ctx) || u.ConversationID == "" || u.ConversationID != tools.ConversationOf(ctx):
		return store.Upload{}, notFound
	}
	return u, nil
}

// uploadResult presents u by its type.
func uploadResult(u store.Upload, a readUploadArgs) (*tools.Result, error) {
	head := fmt.Sprintf("%s (%s, %s, upload %s)", u.Name, u.MIMEType, formatSize(u.Size), u.ID)
	switch {
	case strings.HasPrefix(u.MIMEType, "image/"):
		return &tools.Result{Content: []tools.Content{
			{Type: tools.ContentText, Text: head},
			{Type: tools.ContentImage, Data: u.Data, MIMEType: u.MIMEType},
		}}, nil
	case u.MIMEType == "application/pdf":
		return &tools.Result{Content: []tools.Content{
			{Type: tools.ContentText, Text: head + ": a PDF document; its bytes follow as an embedded resource. Switchboard does not extract PDF text" + pathHint(u)},
			{Type: tools.ContentResource, URI: "upload:" + u.ID, Name: u.Name, MIMEType: u.MIMEType, Data: u.Data},
		}}, nil
	}
	page, err := textPage(u.Data, a.Offset, a.Limit)
	if err != nil {
		return errResult(fmt.Errorf("upload %s: %w", u.ID, err)), nil
	}
	return tools.TextResult(head + "\n" + page), nil
}

func pathHint(u store.Upload) string {
	if u.Path == "" {
		return "."
	}
	return "; a tool that reads PDFs may read it as the file " + u.Path + "."
}

// textPage returns bytes offset..offset+limit of data as a page
// (formatPage), as read_tool_output pages do.
func textPage(data []byte, offset int64, limit int) (string, error) {
	limit, err := pageLimit(limit)
	if err != nil {
		return "", err
	}
	size := int64(len(data))
	if offset < 0 || offset > size || offset == size && size > 0 {
		return "", fmt.Errorf("offset %d is outside the file, which is %d bytes", offset, size)
	}
	return formatPage(data[offset:min(offset+int64(limit), size)], offset, size, nameReadUpload, "file"), nil
}

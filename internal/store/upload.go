package store

import (
	"context"
	"regexp"
	"time"
)

// Upload is a file a person uploaded into a conversation, for the tools
// of that conversation: read by ID through the read_upload tool, and, when
// an uploads directory is configured, also written as a file there (Path).
// Its type was read from its bytes, never from its name.
type Upload struct {
	// ID is assigned by the store when empty ("up_" and random letters).
	ID             string
	ConversationID string
	// UserID is the store ID of the user who uploaded it ("" for the local
	// user); only that user's calls read it.
	UserID string
	// Name is the file's name as the person gave it, for display only;
	// it never names a path.
	Name     string
	MIMEType string
	Size     int64
	// SHA256 is the lowercase hex SHA-256 of Data.
	SHA256 string
	// Path is where the upload was written as a file, "" when it was not.
	Path      string
	CreatedAt time.Time
	// Data is the content; [Uploads.ListUploads] leaves it out.
	Data []byte
}

var uploadIDRE = regexp.MustCompile(`^up_[A-Za-z0-9]{8,40}$`)

// ValidUploadID reports whether id has the form of an upload ID, so that
// a caller can refuse a malformed one before any lookup.
func ValidUploadID(id string) bool { return uploadIDRE.MatchString(id) }

// Validate reports whether u can be created, as an [ErrInvalid] error.
func (u *Upload) Validate() error {
	switch {
	case u.ID != "" && !ValidUploadID(u.ID):
		return invalidf("upload id %q is malformed", u.ID)
	case u.ConversationID == "":
		return invalidf("upload: conversation id is empty")
	case u.Name == "":
		return invalidf("upload: name is empty")
	case u.MIMEType == "":
		return invalidf("upload: type is empty")
	case int64(len(u.Data)) != u.Size:
		return invalidf("upload: size %d is not the data's length %d", u.Size, len(u.Data))
	}
	return nil
}

// Uploads keeps the files uploaded into conversations. Deleting a
// conversation deletes its uploads. Methods are safe for concurrent use.
type Uploads interface {
	// CreateUpload stores u (ID assigned when empty, CreatedAt set to
	// now) and returns it without Data. A conversation that does not exist
	// is ErrNotFound.
	CreateUpload(ctx context.Context, u Upload) (Upload, error)
	// GetUpload returns the upload with id, Data included; ErrNotFound
	// when there is none. The caller checks its user and conversation.
	GetUpload(ctx context.Context, id string) (Upload, error)
	// ListUploads returns the uploads of a conversation, oldest first,
	// without Data.
	ListUploads(ctx context.Context, conversationID string) ([]Upload, error)
}

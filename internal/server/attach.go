package server

import (
	"net/http"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// imageJSON is an image a person attached to a message. Data is base64
// (encoding/json decodes it into bytes).
type imageJSON struct {
	MIMEType string `json:"mimeType"`
	Data     []byte `json:"data"`
}

// maxImages bounds the images of one message; the body limit bounds
// their size.
const maxImages = 8

// visionTypes are the image types every vision API Switchboard speaks
// accepts (OpenAI, Anthropic, Gemini and Ollama all take these four).
var visionTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// imageParts checks attached images and returns them as message parts. An
// image whose bytes are not of the type it claims is refused: the model
// provider would refuse it later with a less helpful message.
func imageParts(imgs []imageJSON) ([]llm.Part, error) {
	if len(imgs) > maxImages {
		return nil, badRequest("%d images attached; at most %d fit in one message", len(imgs), maxImages)
	}
	out := make([]llm.Part, 0, len(imgs))
	for i, im := range imgs {
		switch {
		case !visionTypes[im.MIMEType]:
			return nil, badRequest("images[%d]: type %q is not accepted; attach PNG, JPEG, GIF or WebP", i, im.MIMEType)
		case len(im.Data) == 0:
			return nil, badRequest("images[%d]: data is empty; send the image's bytes in base64", i)
		case http.DetectContentType(im.Data) != im.MIMEType:
			return nil, badRequest("images[%d]: the data is not a %s image", i, im.MIMEType)
		}
		out = append(out, llm.ImagePart(im.MIMEType, im.Data))
	}
	return out, nil
}

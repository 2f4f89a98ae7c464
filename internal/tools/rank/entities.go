package rank

import (
	"regexp"
	"strings"
)

// entity is a pattern for a kind of value a request may carry (an e-mail
// address, a flight number, an amount). A value says what kind of tool is
// wanted even when no word does: "Is LH 455 on time?" asks about a
// flight. Each kind maps to a concept of the lexicon, by label.
type entity struct {
	label string
	// need lists characters of which a match holds at least one: a text
	// with none of them skips the pattern, which keeps a request that
	// carries no values cheap.
	need string
	re   *regexp.Regexp
	// keep, when set, returns the part of the match to keep as words
	// (the extension of a file name); otherwise the match is replaced.
	keep func(match string) string
	// valid, when set, rejects matches the pattern alone cannot tell
	// apart (a booking reference has both letters and digits).
	valid func(match string) bool
}

// entities are compiled once; a compiled Regexp is immutable and safe for
// concurrent use. Order matters: earlier patterns take their text first.
var entities = []entity{
	{label: "url", need: ":wW", re: regexp.MustCompile(`(?i)\bhttps?://\S+|\bwww\.[a-z0-9-]+\.\S+`)},
	{label: "email address", need: "@", re: regexp.MustCompile(`(?i)\b[a-z0-9._%+-]+@[a-z0-9-]+(\.[a-z0-9-]+)+\b`)},
	{label: "repository reference", need: "#", re: regexp.MustCompile(`\b[\w.-]+/[\w.-]+#\d+\b`)},
	{label: "coordinates point", need: "0123456789", re: regexp.MustCompile(`-?\b\d{1,3}\.\d{3,}\s*,\s*-?\d{1,3}\.\d{3,}\b`)},
	{label: "ip address", need: "0123456789", re: regexp.MustCompile(`\b\d{1,3}(\.\d{1,3}){3}(/\d{1,2})?\b`)},
	{
		label: "file name", need: ".", re: regexp.MustCompile(`(?i)(^|[\s/~])[\w.-]+\.(txt|csv|tsv|pdf|docx?|xlsx?|pptx?|json|ya?ml|md|png|jpe?g|gif|svg|zip|tar|gz|srt|vtt|log|html?|mp3|mp4|wav|sql|ofx|qif|key|pem)\b`),
		keep: func(m string) string { return m[strings.LastIndexByte(m, '.')+1:] },
	},
	{label: "domain name", need: ".", re: regexp.MustCompile(`(?i)\b(?:[a-z0-9-]+\.)+(?:com|org|net|io|dev|app|co|ai|de|uk|fr|es|it|nl|eu|us|ca|au|info|biz|cloud|tech|site|me)\b`)},
	{label: "file path", need: "/", re: regexp.MustCompile(`(^|\s)~?/[\w.-]+(/[\w.-]+)+`)},
	{
		label: "repository name", need: "/", re: regexp.MustCompile(`(^|\s)[a-zA-Z][\w.-]+/[a-zA-Z][\w.-]+\b`),
		valid: func(m string) bool { return !strings.EqualFold(strings.TrimSpace(m), "and/or") },
	},
	{label: "instance type", need: ".", re: regexp.MustCompile(`(?i)\b[a-z]\d[a-z]{0,2}\.(nano|micro|small|medium|large|\d*xlarge)\b`)},
	{label: "region", need: "-", re: regexp.MustCompile(`(?i)\b(us|eu|ap|sa|ca|me|af|il|mx)-(east|west|north|south|central|northeast|southeast|northwest|southwest)-\d\b`)},
	{label: "emoji", re: regexp.MustCompile(`:[a-z0-9_+-]+:|[\x{1F300}-\x{1FAFF}\x{2600}-\x{27BF}]`)},
	{label: "cell range", need: ":", re: regexp.MustCompile(`\b[A-Z]{1,3}\d{1,7}:[A-Z]{1,3}\d{1,7}\b`)},
	{label: "ticket key", need: "-", re: regexp.MustCompile(`\b[A-Z][A-Z0-9]{1,9}-\d+\b`)},
	{label: "flight number", need: "0123456789", re: regexp.MustCompile(`\b(?:[A-Z]{2}|[A-Z]\d|\d[A-Z])\s?\d{2,4}\b`)},
	{label: "money", need: "0123456789", re: regexp.MustCompile(`(?i)[$€£¥₹]\s?\d[\d,.]*\s?[kmb]?\b|\b\d[\d,.]*\s?(dollars|euros|pounds|bucks|usd|eur|gbp|chf|jpy)\b`)},
	{label: "percent", need: "0123456789", re: regexp.MustCompile(`\b\d+(\.\d+)?\s?(%|percent\b)`)},
	{label: "temperature", need: "0123456789", re: regexp.MustCompile(`(?i)\b\d+(\.\d+)?\s?(°\s?[cf]?|degrees?\b)`)},
	{label: "time of day", need: "0123456789", re: regexp.MustCompile(`(?i)\b\d{1,2}(:\d{2})?\s?(am|pm)\b|\b\d{1,2}:\d{2}\b`)},
	{label: "date", need: "0123456789", re: regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}(/\d{2,4})?\b`)},
	{label: "channel", need: "#", re: regexp.MustCompile(`(^|\s)#[a-zA-Z][\w-]*`)},
	{label: "number reference", need: "#", re: regexp.MustCompile(`(^|\s)#\d+\b`)},
	{label: "mention", need: "@", re: regexp.MustCompile(`(^|\s)@[a-zA-Z][\w.-]*`)},
	{
		label: "phone number", need: "0123456789", re: regexp.MustCompile(`(\+\d{1,3}[\s.-]?)?\(?\b\d{2,4}\)?[\s.-]\d{3,4}[\s.-]?\d{0,4}\b`),
		valid: func(m string) bool { return digits(m) >= 7 },
	},
	{
		label: "booking reference", need: "0123456789", re: regexp.MustCompile(`\b[A-Z0-9]{5,6}\b`),
		valid: func(m string) bool { return digits(m) > 0 && digits(m) < len(m)-1 },
	},
	{
		label: "hex identifier", need: "0123456789", re: regexp.MustCompile(`\b[0-9a-f]{8,40}\b`),
		valid: func(m string) bool { return digits(m) > 0 && digits(m) < len(m) },
	},
	{label: "promo code", need: "0123456789", re: regexp.MustCompile(`\b[A-Z]{3,}\d{1,4}\b`)},
}

// notFlights are two-letter abbreviations that precede numbers in
// requests far more often as something else than as an airline.
var notFlights = map[string]bool{"PR": true, "MR": true, "ID": true, "OS": true, "IP": true, "PO": true, "NO": true, "TV": true}

// findEntities returns text with the values it found blanked out (so
// "finance@acme.com" does not read as the word "finance") and the labels
// of their kinds, in pattern order.
func findEntities(text string) (rest string, labels []string) {
	b := []byte(text)
	for _, e := range entities {
		if e.need != "" && !strings.ContainsAny(text, e.need) || e.need == "" && !mayHoldEmoji(text) {
			continue
		}
		locs := e.re.FindAllIndex(b, -1)
		found := false
		for _, loc := range locs {
			m := string(b[loc[0]:loc[1]])
			if strings.TrimSpace(m) == "" {
				continue
			}
			if e.label == "flight number" && notFlights[strings.ToUpper(m[:2])] || e.label == "flight number" && m[0] == 'Q' {
				continue
			}
			if e.valid != nil && !e.valid(m) {
				continue
			}
			found = true
			keep := ""
			if e.keep != nil {
				keep = e.keep(m)
			}
			for i := loc[0]; i < loc[1]; i++ {
				b[i] = ' '
			}
			copy(b[loc[1]-len(keep):], keep)
		}
		if found {
			labels = append(labels, e.label)
		}
	}
	return string(b), labels
}

// mayHoldEmoji reports whether text has a ":" (a :shortcode:) or a rune in
// the ranges the emoji pattern covers.
func mayHoldEmoji(text string) bool {
	for _, r := range text {
		if r == ':' || r >= 0x2600 {
			return true
		}
	}
	return false
}

// digits counts the ASCII digits of s.
func digits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			n++
		}
	}
	return n
}

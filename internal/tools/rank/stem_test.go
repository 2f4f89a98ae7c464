package rank

import "testing"

func TestStem(t *testing.T) {
	// Expected values from the Snowball English stemmer's published
	// vocabulary and output.
	cases := map[string]string{
		"consign": "consign", "consigned": "consign", "consigning": "consign", "consignment": "consign",
		"consolation": "consol", "consolatory": "consolatori", "generously": "generous",
		"running": "run", "hopping": "hop", "hoping": "hope", "caresses": "caress", "ponies": "poni",
		"ties": "tie", "cats": "cat", "agreed": "agre", //nolint:misspell // a Porter2 stem, not a word
		"relational": "relat", "conditional": "condit",
		"triplicate": "triplic", "formalize": "formal", "electrical": "electr", "adjustment": "adjust",
		"translate": "translat", "translation": "translat", "translating": "translat",
		"files": "file", "reviewers": "review", "scheduled": "schedul", "schedule": "schedul",
		"news": "news", "generate": "generat", "communication": "communic", "lights": "light",
		"happily": "happili", "cry": "cri", "by": "by", "say": "say", "gas": "gas", "gaps": "gap",
		"kiwis": "kiwi", "succeeded": "succeed", "dying": "die", "t3": "t3", "e-mail": "e-mail",
		"playing": "play", "played": "play", "plays": "play", "booking": "book", "booked": "book",
	}
	for in, want := range cases {
		if got := stem(in); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

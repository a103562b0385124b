package main

import (
	"testing"
)

// TestShippedStoreP2S2: every shipped plugin validates and has a manual
// that names its plugin and its words in English and German.
func TestShippedStoreP2S2(t *testing.T) {
	all, err := loadShipped()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 40 { // the issue asks for at least 40
		t.Errorf("%d shipped plugins", len(all))
	}
	for id, sp := range all {
		m := sp.manual
		if m == nil {
			t.Errorf("%s: no manual", id)
			continue
		}
		if m.Plugin != id || len(m.Words) == 0 || len(m.WordsDE) == 0 || m.Tier == "" {
			t.Errorf("%s: manual header plugin=%q words=%d de=%d tier=%q", id, m.Plugin, len(m.Words), len(m.WordsDE), m.Tier)
		}
	}
}

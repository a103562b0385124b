package web

import "testing"

// TestPauseComesBackToLocalPagesOnlyX5: the page the pause switch returns
// to is a path on the dashboard, never another site.
func TestPauseComesBackToLocalPagesOnlyX5(t *testing.T) {
	for back, want := range map[string]string{
		"/agents":              "/agents",
		"/activity?agent=x":    "/activity?agent=x",
		"":                     "/",
		"//evil.example/":      "/",
		"https://evil.example": "/",
		"/\\evil.example":      "/",
		"/a\r\nSet-Cookie: x":  "/",
	} {
		if got := localPath(back); got != want {
			t.Errorf("localPath(%q) = %q, want %q", back, got, want)
		}
	}
}

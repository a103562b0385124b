package fakegoogle

import "net/http"

// mailData is the fake's Gmail v1 state.
type mailData struct{}

func newMailData() *mailData { return &mailData{} }

// gmailRoutes serves Gmail v1 below /gmail/v1/.
func (s *Server) gmailRoutes(mux *http.ServeMux) {}

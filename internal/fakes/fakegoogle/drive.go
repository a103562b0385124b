package fakegoogle

import "net/http"

// driveData is the fake's Drive v3 state.
type driveData struct{}

func newDriveData() *driveData { return &driveData{} }

// driveRoutes serves Drive v3 below /drive/v3/ and /upload/drive/v3/.
func (s *Server) driveRoutes(mux *http.ServeMux) {}

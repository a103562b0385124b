package fakegoogle

import "net/http"

// calendarData is the fake's Calendar v3 state.
type calendarData struct{}

func newCalendarData() *calendarData { return &calendarData{} }

// calendarRoutes serves Calendar v3 below /calendar/v3/.
func (s *Server) calendarRoutes(mux *http.ServeMux) {}

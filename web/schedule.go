package web

// Schedule is what the Schedule tab reads and changes. (Its page fills this in.)
type Schedule interface{}

// scheduleRoutes registers the Schedule tab's handlers.
func (s *Server) scheduleRoutes() {}

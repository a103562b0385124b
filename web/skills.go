package web

// Skills is what the Skills tab reads and changes. (Its page fills this in.)
type Skills interface{}

// skillsRoutes registers the Skills tab's handlers.
func (s *Server) skillsRoutes() {}

package web

// MCPs is what the MCPs tab reads and changes. (Its page fills this in.)
type MCPs interface{}

// mcpsRoutes registers the MCPs tab's handlers.
func (s *Server) mcpsRoutes() {}

package web

// Plugins is what the Plugins tab reads and changes. (Its page fills this in.)
type Plugins interface{}

// pluginsRoutes registers the Plugins tab's handlers.
func (s *Server) pluginsRoutes() {}

package web

// Route is what the Route tab reads and changes. (Its page fills this in.)
type Route interface{}

// routeRoutes registers the Route tab's handlers.
func (s *Server) routeRoutes() {}

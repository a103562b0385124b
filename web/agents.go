package web

// Agents is what the Agents tab reads and changes. (Its page fills this in.)
type Agents interface{}

// agentsRoutes registers the Agents tab's handlers.
func (s *Server) agentsRoutes() {}

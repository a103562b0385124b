package web

// Approvals is what the Approvals tab reads and changes. (Its page fills this in.)
type Approvals interface{}

// approvalsRoutes registers the Approvals tab's handlers.
func (s *Server) approvalsRoutes() {}

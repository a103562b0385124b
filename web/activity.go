package web

// Activity is what the Activity tab reads and changes. (Its page fills this in.)
type Activity interface{}

// activityRoutes registers the Activity tab's handlers.
func (s *Server) activityRoutes() {}

package skills

// Skills returns the skills the ranker ranks, in the order it was given
// them: the enabled skills of a turn, which the runtime's stable prompt
// lists by name (C8). Do not modify the slice.
func (r *Ranker) Skills() []*Skill { return r.skills }

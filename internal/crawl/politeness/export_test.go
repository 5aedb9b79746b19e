package politeness

// InLine is how many requests of l stand in host's line (for tests).
func (l *Limiter) InLine(host string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.line[host])
}

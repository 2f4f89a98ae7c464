package sqlstore

// AuditQueue returns how many audit writes the batch being committed holds
// and how many wait for the next one. The dialects' DB types promote it
// while this package's tests run.
func (db *DB) AuditQueue() (inBatch, queued int) {
	c := db.audit
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inBatch, len(c.queue)
}

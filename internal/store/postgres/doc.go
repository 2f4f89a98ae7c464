// Package postgres implements store.Store on PostgreSQL through pgx's
// database/sql driver. It is for running several Switchboard replicas behind
// a load balancer on one database, so everything here is safe across
// processes, not only across goroutines:
//
//   - migrations run under a session advisory lock, so replicas starting
//     together apply each migration once;
//   - appends lock their conversation row while they take the next Seqs, so
//     Seqs stay gapless and unique across replicas;
//   - an approval is decided by a conditional UPDATE ... WHERE
//     state = 'pending', so only one decider wins;
//   - each open DB holds an advisory lock naming its instance for as long as
//     it lives, so InterruptRunning interrupts only the calls of replicas
//     that are gone.
//
// The schema is the one search_path selects (tests use a throw-away schema).
// Only internal/app (and commands that open a database for their own use)
// may import this package; everything else uses the store contract.
package postgres

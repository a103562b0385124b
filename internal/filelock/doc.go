// Package filelock is an exclusive lock on a file that the kernel drops
// when its holder dies, for work one process on a machine must do alone:
// renewing a sign-in, leading a role among serve processes that share one
// SQLite file (ST2).
package filelock

// Package chat is one conversation of the harness and what it runs with:
// the system prompt built from the tools and the project's instructions,
// the agent and the hooks every conversation of the run gets, one turn,
// the resume policy of saved sessions, and switching models between
// turns. The command builds its parts once and hands them over; the REPL
// and -p each drive it.
package chat

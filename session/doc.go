// Package session saves conversations as they happen, so that they survive
// a crash and can be continued later, by this process or another.
//
// # Files
//
// A Store is a folder (the harness uses $XDG_STATE_HOME/harness/sessions,
// by default ~/.local/state/harness/sessions), created 0700; never a folder
// inside a workspace. Each session is one file in it, named by its id and
// ".jsonl", created 0600 and only ever appended to while it is written. An
// id is the UTC time the session was started and four random hex digits,
// "20261201-101500-ab12", so that ids sort by age and stay short.
//
// A session file is a run record (package record, format 1) holding only
// the conversation: a start line naming the session, its workspace (the
// resolved root), model and backend; one message line for each message
// the conversation gains, with its role and content exactly as the model
// is sent it; a replace line when messages are taken away (a compaction, or
// a turn whose first step failed); and, after the message lines of each
// step, the line that marks the conversation complete at that point: a
// request line before each model call, a turn_end line after each turn.
// Those two carry the turn number, the number of calls numbered so far
// and the usage of the last reply, so that loop.State comes back exactly
// (usage durations to the microsecond). The record package's doc states
// every field.
//
// Only what the model was sent or wrote is saved: the messages of the
// conversation, the system prompt first. No environment, no options beyond
// the start line's, nothing a tool produced that the approval gate held
// back (the gate's own text stands in the conversation in its place).
//
// A model line says that the model in use changed, from the turn it
// names (the REPL's /model, or a conversation continued with another
// model); Saved.Model is the last one named. A model named before the file
// exists goes into its start line instead.
//
// A note line holds what the model is to be told with the next input: what
// a command changed behind its back, such as the files the REPL's /undo put
// back (Writer.Note). It is written as it is made, so that the model is
// told even when the next input comes in another run; Saved.Note has the
// notes made after the last turn that counts.
//
// # Helpers
//
// The conversation of a helper (the agent tool: a conversation a call of
// the main one started) is saved in the same file when its turn is over
// (Writer.Child): its messages and a turn_end line, each with the id of
// the call that started it as its origin, written after the main
// conversation's message that holds the call and before the one that
// holds the call's result. They belong to the main conversation's step
// under way: a step that never completed takes its helpers with it. The
// main conversation is read from the lines without an origin, so it never
// depends on its helpers' lines; Saved.Children has the helpers', by
// origin, and `harness replay` shows them under the call.
//
// # Writing
//
// A Writer is a loop.Hook. Before each model call (StepStarted) it writes
// every message the file lacks, and the request line, with one write call
// to a file opened for appending, so the messages are on disk before the
// request is sent; at the end of each turn (TurnEnded) it does the same
// with a turn_end line and syncs the file, and the first time the folder
// too, whose sync of the file's new name runs beside the first write.
// While calls run (CallStarted,
// CallEnded) it writes the messages of the step under way the file lacks,
// with no line that marks them complete: the reply that holds the calls,
// and each result as it comes. The file is created once the
// first step has completed (its reply came), with that step's lines, so a
// conversation whose first request failed, or that was killed before its
// first reply, leaves no file: it is never listed, nor continued by -c. A
// turn whose first step failed is taken back (a replace line) and not
// counted: the turn_end line after it counts the turns before it. While a Writer has its file open it holds an exclusive lock on it
// (where the system has flock), so two processes never append to the same
// session.
//
// # Reading
//
// A file killed at any moment still reads: a last line that was cut off is
// skipped (Saved.Cut), and message lines after the last request or
// turn_end line, the part of a step that never completed, are not restored
// (Saved.Dropped). Those of a step killed while its calls ran still say
// which calls had ended and which were cut off (Saved.Unfinished,
// Saved.CutCalls), so that the user and the model can be told. Continuing
// a session cuts those lines off the file before appending. A start line in a format this package does not know is a
// *record.FormatError; any other line that does not fit is an error
// wrapping ErrInvalid that names it.
//
// Listing (Store.List) reads each file's first lines (for the first prompt)
// and only the end of the file (for the number of turns), so it stays
// cheap however long the sessions are.
//
// # Names
//
// Save copies a conversation into a new session with a name (the REPL's
// /save), which Find, the REPL's /load and --resume accept as well as an
// id. CheckName says which names are valid: short printable text without
// slashes, not hidden, not of an id's form. A name belongs to one session
// of a workspace: Save refuses one already taken there (*TakenError), so
// that a name never silently stops finding what it found. A named
// session is a snapshot: the harness never continues it in its own file
// (a conversation loaded from it goes on in a new session), and Latest
// passes over it, as the conversation it was copied from is the latest.
//
// # One schema
//
// Sessions and the run record share one schema and one reader: a session
// file is a record made of start, message, replace, request and turn_end
// lines, so `harness replay` prints a session too. They stay separate files
// with separate writers: a record keeps what a session must not resend or
// need not hold (thinking, the raw reply with any lines the harness
// dropped from it, timings, approvals, each call's arguments), and a
// session keeps the conversation the model saw, which a record only counts.
package session

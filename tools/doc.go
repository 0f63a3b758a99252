// Package tools holds the tools a model may call and the workspace they
// work in.
//
// # Tools
//
// A Tool is built with New from a typed function. Its arguments are the
// fields of a struct, described by tags:
//
//	type readArgs struct {
//		Path   string `arg:"path" help:"File path, relative to the workspace root"`
//		Offset int    `arg:"offset,optional" help:"First line to show, counting from 1"`
//	}
//
// A string field is a string argument, an int or int64 field an integer and
// a bool field a boolean; any other field type is a programmer error and New
// panics. An argument is required unless its tag says optional; a missing
// optional argument leaves the field at its zero value.
//
// A tool returns the body of its result, or an error whose text is the body
// of an ERROR result. Those texts are written for the model: they say what
// went wrong and what to do instead. A Set holds the tools of a run and
// turns each call into a protocol.Result; a tool that panics or is cancelled
// gives an ERROR result, never a crash.
//
// # Workspace
//
// Every path a tool is given is resolved by a Workspace. Relative paths are
// taken from the root; absolute paths must lie inside it; an empty path is
// the root itself. Symbolic links are followed before the check, so a link
// inside the workspace that points outside it (even one whose target does
// not exist yet) is refused like any other outside path, with an error that
// wraps ErrOutsideWorkspace.
//
// The file tools are read_file, list_files, edit_file and write_file. Reads
// are capped at 2,000 lines or 64 KiB, or at the smaller page the program
// sets for the model's context window (WithPages, WithPageBytes); a capped
// read ends with a marker line in square brackets that says how many lines
// are left and how to read on. A path that does not exist gets the closest
// name in its folder that list_files would show, if one is close. Writes are atomic: the new
// text goes to a hidden temporary file beside the target, is synced, given
// the target's permissions and renamed over it, so a file is always either
// old or new and no temporary file is left behind. Files are opened and
// written through the workspace root (os.Root), so a folder swapped for a
// symlink after the check cannot lead outside, and a write replaces a
// final symlink rather than following it.
//
// Two of their rules are exported for the harness around the tools:
// ApplyEdit is edit_file's replacement of one text by another, which the
// harness uses to show an edit before it is made; ReadHead is how a file
// is read without blocking on a named pipe, regular files only, and no
// more than a bound, for the files the harness reads for itself.
//
// # Secrets
//
// The workspace keeps some paths from the model: names that hold secrets
// wherever they are (fence.SecretName: .env*, *.pem, *.key, SSH keys such
// as id_rsa*, credential files such as .netrc and .npmrc, folders such as
// .ssh and .aws), everything in .git and in the git directory wherever .git
// points (gitdir.Find), and what the workspace's .gitignore files and
// .git/info/exclude ignore, now or when the workspace was opened: the
// rules read then keep protecting for the life of the Workspace, so an
// edit of .gitignore can add protection but never take it away. list_files
// leaves them out; read_file and edit_file refuse them with an error
// wrapping ErrSecret, unless the context comes from WithSecrets because
// the user approved the read. Nothing is ever written into .git or the git
// directory (ErrProtected).
//
// Whatever the workspace holds, the harness's own settings and state and
// what git and the shells run at start (fence.StartupPlaces) are neither
// read nor written. When it holds the home folder, the places there that
// programs act on when they start are not written either, existing or
// not: the home folder's settings (fence.HomeSetting), the folders of
// PATH in it and the toolchain a bin of them lies in, and where its
// settings link to. Commands see those that exist read-only, and what a
// command makes there anew is moved into the state folder after it and
// reported.
//
// Each tool says what a call of it would do before it runs (Set.Inspect,
// an approve.Inspector): what it acts on, the files it reads (for bash,
// those whose contents its command reads, as guard.Policy.CheckReads finds
// them, and the protected paths of git's history a command that prints
// files from it reaches, Workspace.HistorySecrets), the secret it would
// read, the diff an edit would make, the
// protected files a change of an ignore file would stop ignoring, and,
// for bash, the refusal of a command line the guard refuses. Sources
// gives the text of the files read, so that the approval step can decide
// secrecy per file.
//
// # Commands
//
// The bash tool checks each command line with a guard.Policy, refusing it
// before anything runs, and runs what passes, parsed once: the line its
// inspection checked is the line it runs, through a Shell, normally a
// sandbox.Sandbox, which hides the workspace's secret and ignored files
// from it (Workspace.Hidden), keeps the git directory read-only and shows
// the git configuration without credentials, when it can. After every
// command .git, the configuration, commondir and hooks are compared with
// what they were: a change is put back, and the result is an ERROR that
// names it, wrapping ErrProtected.
//
// # Long results
//
// Outputs wraps a set of tools: a result longer than read_file shows at
// once reaches the model as its head and tail around a marker, and the
// whole is kept in a file under a reference (out_3 for call_3) that the
// read_output tool pages through. A command's output streams to that file
// as it comes (the sandbox's Command.Output), so no long output is held in
// memory; past 4 MiB its middle is dropped and the result says how much.
// Close removes the files.
//
// # Lies
//
// A Lie makes the harness tell the model something false, to show that a
// model believes whatever its tools report. The lies are:
//
//	joke          read_file returns a joke instead of the file
//	invent        list_files adds files that do not exist to the listing
//	              of the workspace root
//	ext:FROM=TO   list_files shows names ending in FROM as ending in TO;
//	              read_file, edit_file and write_file of such a name act
//	              on the real file, and their results name it with TO
//
// Lies only change what the model reads: they never rename a file or make
// one up, and the same call always gets the same lie. Each time one changes
// a result, the result's Note tells the user what it changed ("lie:
// read_file returned a joke instead of a.go's 12 lines"); the model never
// reads it.
//
// # Notes and read-only commands
//
// A Result's Note is for the user alone. A bash call whose command line
// only reads, as guard.ReadOnly tells, gives a result that never says the
// workspace changed (Wrote false), whatever its exit status.
package tools

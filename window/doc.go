// Package window keeps a conversation inside the model's context window:
// it counts tokens, masks old tool results, has older turns summarized,
// refuses what cannot fit, and shows what the window holds.
//
// # Counting
//
// A [Counter] estimates tokens from bytes (each message counts its content
// and 16 bytes of template), at a ratio of bytes per token that starts at 4
// and is calibrated from what the backend reports: after each reply, the
// prompt tokens it counted are the true size of the messages that went
// before. [Counter.Count] is that true size plus an estimate of what came
// since.
//
// # The budget
//
// The window (num_ctx) is shared out by a [Budget]: a reserve kept free for
// the reply (the output limit, or an eighth of the window), the limit (the
// window less the reserve: the most a request may hold), the threshold (a
// share of the limit, 90% by default, above which the conversation is
// compacted before the next request) and the low mark (50% by default),
// which a compaction aims to get below.
//
// # Compacting
//
// A [Compactor] is the loop's compaction seam (loop.Compactor). Above the
// threshold it compacts, cheapest first, in one large chunk, so that the
// following requests again extend a stable prefix and a server's prompt
// cache serves them:
//
//   - Masking ([Mask]): the result of each call older than the latest few
//     steps (a step is a reply of the model and the results of its calls)
//     keeps its header line, and its body becomes one line:
//
//     [result of call_7 read_file a.go elided to save context (2.3 KB); call the tool again if you need it]
//
//     A masked result is never changed again, so masking is idempotent and
//     the conversation's start stays byte for byte the same. A result is
//     told from what the user wrote by where it stands, after the reply
//     whose call it answers, never by its first line alone (see [Parts]):
//     a log the user pastes is never masked.
//
//   - Summarizing: if that is not enough, and there is a [Summarizer], the
//     messages older than the latest steps, except the system prompt and
//     the user's latest message, are replaced by one user message whose
//     first line is [SummaryHeader] and whose text the Summarizer wrote
//     ([ModelSummarizer] asks the model). When the model writes none
//     ([ErrEmptySummary]) and the masked steps alone do not fit, the
//     steps older than the latest few go without one: a note in the
//     summary's place says so, and a long turn goes on.
//
//   - Refusing: a message of the user's that does not fit the window with
//     the system prompt, or a conversation that still does not fit after
//     compaction, ends the turn with a [*TooLargeError] that says what to
//     do; nothing is sent and nothing lost. A tool result too large by
//     itself is not refused: its body becomes a line saying so
//     ("elided: too large for the context window (...); ask for a smaller
//     part"), so that the model can ask for less.
//
// The system prompt is never touched. [Compactor.Last] reports what the
// latest compaction did: its tokens before and after, which the Compacted
// event carries into the run record's compaction line, and what it masked
// and summarized. A session keeps only the conversation that results (a
// replace line and the new messages), not these counts.
//
// # Seeing the window
//
// [Measure] breaks a conversation down by [Part] (system prompt,
// instructions, user messages, replies, tool results, summaries) in tokens,
// and [Breakdown.Render] draws it as a small text bar chart with the free
// space and the compaction threshold. [Short] writes token counts for a
// status line ("ctx 9.1k/16k").
package window

package window_test

import (
	"testing"

	"harness/protocol"
	"harness/window"
)

// cacheUse is what a server with a prompt cache had to evaluate over a run,
// in tokens as the fake model counts them (a quarter of the bytes of the
// messages' contents).
type cacheUse struct {
	total    int // prompt tokens of every request
	uncached int // of those, the ones past the prefix each shares with the request before
	again    int // of those, the ones the request before had sent already: evaluated again only because the prefix changed
}

// measureCache compares each request with the one before.
func measureCache(reqs [][]protocol.Message) cacheUse {
	var u cacheUse
	for i, req := range reqs {
		all := bytesOf(req)
		u.total += all
		if i == 0 {
			u.uncached += all
			continue
		}
		prev := reqs[i-1]
		n := common(prev, req)
		shared := bytesOf(req[:n])
		if n < len(prev) && n < len(req) && prev[n].Role == req[n].Role {
			a, b := prev[n].Content, req[n].Content
			k := 0
			for k < len(a) && k < len(b) && a[k] == b[k] {
				k++
			}
			shared += k
		}
		u.uncached += all - shared
		// New since the request before: the reply to it and what
		// followed, from the last reply on.
		fresh := 0
		for j := len(req) - 1; j > 0; j-- {
			if req[j].Role == protocol.Assistant {
				fresh = bytesOf(req[j:])
				break
			}
		}
		u.again += max(all-shared-fresh, 0)
	}
	u.total, u.uncached, u.again = (u.total+3)/4, (u.uncached+3)/4, (u.again+3)/4
	return u
}

func bytesOf(msgs []protocol.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content)
	}
	return n
}

// BenchmarkLongTurn60 runs the 60-step turn of 2 KB read_file results in a
// window of 4096 tokens and reports how much of the prompts a server with
// a prompt cache had to evaluate:
//
//   - reeval-%: tokens evaluated again because a compaction changed the
//     prefix (past the prefix shared with the request before, and not
//     new since it), as a share of all prompt tokens;
//   - uncached-%: every token past the prefix shared with the request
//     before, the new reply and result included, as a share of all prompt
//     tokens;
//
// and how many compactions and summaries the run needed.
func BenchmarkLongTurn60(b *testing.B) {
	set, system, script := sixty.setup(b)
	var res longRunResult
	b.ReportAllocs()
	for b.Loop() {
		res = sixty.run(b, set, system, script, window.Config{})
		if res.err != nil || res.answer != "Done." {
			b.Fatalf("Turn = %q, %v", res.answer, res.err)
		}
	}
	u := measureCache(res.requests)
	b.ReportMetric(100*float64(u.again)/float64(u.total), "reeval-%")
	b.ReportMetric(100*float64(u.uncached)/float64(u.total), "uncached-%")
	b.ReportMetric(float64(len(res.compacted)), "compactions/op")
	b.ReportMetric(float64(res.summaries), "summaries/op")
}

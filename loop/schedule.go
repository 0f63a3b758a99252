package loop

import (
	"context"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"harness/protocol"
)

// job is one call of a reply on its way to a result.
type job struct {
	call   protocol.Call
	writes bool
	run    bool // false: the result is already decided and nothing runs
	res    protocol.Result
	took   time.Duration
}

// calls decides, schedules and runs the calls of one reply, appends their
// results to the conversation in call order and records them in the report.
// Consecutive calls that only read run together; a call that may write
// (of a writing tool, or as CallWrites says) runs alone, after every call
// before it and before every call after it. stop, when set, refuses every call (a hook ended the turn after
// the reply).
func (t *turn) calls(ctx context.Context, calls []protocol.Call, cut bool, stop error) error {
	a := t.agent
	jobs := make([]*job, len(calls))
	malformed := false
	t.resultBytes = 0
	for i, call := range calls {
		a.calls++
		call.ID = protocol.CallID(a.calls)
		j := &job{call: call}
		switch err := protocol.Validate(a.list, &j.call); {
		case cut:
			j.res = cutOff(j.call)
		case i >= a.cfg.MaxCallsPerReply:
			j.res = tooMany(j.call, len(calls), a.cfg.MaxCallsPerReply)
		case err != nil:
			malformed = true
			j.res = protocol.Rejected(j.call, err)
		default:
			j.run = true
			j.writes = a.writes(j.call)
		}
		jobs[i] = j
	}
	for start := 0; start < len(jobs); {
		end := batchEnd(jobs, start)
		switch {
		case stop != nil:
			t.refuse(jobs[start:end], stop)
		case t.resultBytes >= a.cfg.MaxResultBytes:
			stop = t.refuse(jobs[start:end], errResultBytes{a.cfg.MaxResultBytes})
		default:
			stop = t.runBatch(ctx, jobs[start:end])
		}
		start = end
	}
	if stop != nil {
		return stop
	}
	if !malformed {
		t.formatErrors = 0
		return nil
	}
	if t.formatErrors++; t.formatErrors >= a.cfg.MaxFormatErrors {
		return &LimitError{Name: "max-format-errors", Value: fmt.Sprint(a.cfg.MaxFormatErrors), What: "replies in a row with a malformed call"}
	}
	return nil
}

// writes reports whether call, accepted, may change the workspace: as the
// Tools say of it when they can tell per call, else as its tool's spec.
func (a *Agent) writes(call protocol.Call) bool {
	if w, ok := a.tools.(CallWrites); ok {
		return w.Writes(call)
	}
	return a.specs[call.Name].Writes
}

// batchEnd returns the end of the batch that starts at jobs[start]: a
// writing call alone, or the read-only and refused calls that follow.
func batchEnd(jobs []*job, start int) int {
	if jobs[start].writes {
		return start + 1
	}
	end := start + 1
	for end < len(jobs) && !jobs[end].writes {
		end++
	}
	return end
}

// runBatch runs one batch: hooks see every call start, the calls run
// together, and hooks see them end in order. It returns the first hook
// error; calls not yet run by then are refused with it.
func (t *turn) runBatch(ctx context.Context, batch []*job) error {
	a := t.agent
	var stop error
	started := len(batch)
	for i, j := range batch {
		if err := a.emit(Event{Kind: CallStarted, Step: t.step, Call: j.call, Writes: j.writes}); err != nil {
			stop, started = err, i+1
			if j.run {
				j.res, j.run = notRun(j.call, err), false
			}
			break
		}
	}
	run := func(j *job) {
		begin := time.Now()
		j.res = a.tools.Run(ctx, j.call)
		j.res.CallID, j.res.Tool = j.call.ID, j.call.Name
		j.took = time.Since(begin)
	}
	// The last call to run runs here, while the others run: a goroutine
	// for it would only add a stack to grow.
	last := -1
	for i, j := range batch[:started] {
		if j.run {
			last = i
		}
	}
	var wg sync.WaitGroup
	for i, j := range batch[:started] {
		switch {
		case !j.run:
		case i == last:
			run(j)
		default:
			wg.Go(func() { run(j) })
		}
	}
	wg.Wait()
	for i, j := range batch {
		if i >= started {
			j.res, j.run = notRun(j.call, stop), false
		}
		t.finish(j)
		// Calls of this batch that ran are reported even after a hook
		// objects: they happened.
		if err := a.emit(Event{Kind: CallEnded, Step: t.step, Call: j.call, Writes: j.writes, Result: j.res, Ran: j.run && !j.res.Refused, Duration: j.took}); err != nil && stop == nil {
			stop = err
		}
	}
	return stop
}

// refuse gives each job a result saying it was not run because of why,
// and returns the first error of the hooks.
func (t *turn) refuse(jobs []*job, why error) error {
	var first error
	for _, j := range jobs {
		if j.run {
			j.res, j.run = notRun(j.call, why), false
		}
		t.finish(j)
		if err := t.agent.emit(Event{Kind: CallEnded, Step: t.step, Call: j.call, Writes: j.writes, Result: j.res}); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// finish appends a job's result to the conversation and the report; the
// result of a call that ran is cut to what is left of the step's result
// bytes, or left out, and then an ERROR: the model never reads it.
func (t *turn) finish(j *job) {
	limit := t.agent.cfg.MaxResultBytes
	switch left := limit - t.resultBytes; {
	case !j.run || len(j.res.Body) <= left: // a call that did not run says so briefly
	case left <= 0:
		j.res.OK = false
		j.res.Body = fmt.Sprintf("[left out: the results of one step may hold %d bytes, and those before this one reached it. Ask for less at a time, such as fewer files or narrower commands]", limit)
	default:
		j.res.Body = cutBody(j.res.Body, left) + fmt.Sprintf("\n[cut here: the results of one step may hold %d bytes, and this one reached it. Ask for less at a time, such as fewer files or narrower commands]", limit)
	}
	t.resultBytes += len(j.res.Body)
	t.agent.edit(len(t.agent.msgs), j.res.Message())
	t.report.add(j, t.agent.cfg)
}

// cutBody returns the first n bytes of body, or fewer so as not to split
// a character.
func cutBody(body string, n int) string {
	for n > 0 && n < len(body) && !utf8.RuneStart(body[n]) {
		n--
	}
	return body[:n]
}

// tooMany is the result of a call past the most one reply may make.
func tooMany(call protocol.Call, calls, limit int) protocol.Result {
	return protocol.Result{
		CallID: call.ID,
		Tool:   call.Name,
		Body: fmt.Sprintf("Not run: your reply held %d calls, and one reply may make at most %d; the calls after the first %d were not run. Nothing was run for this one. Send the calls that are still needed in your next reply.",
			calls, limit, limit),
	}
}

// errResultBytes refuses the calls of a step whose results reached the
// most a step may send back.
type errResultBytes struct{ limit int }

func (e errResultBytes) Error() string {
	return fmt.Sprintf("the results of this step already hold %d bytes, the most one step may send back; ask for less at a time, and send this call again in your next reply", e.limit)
}

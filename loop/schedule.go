package loop

import (
	"context"
	"fmt"
	"sync"
	"time"

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
	for i, call := range calls {
		a.calls++
		call.ID = protocol.CallID(a.calls)
		j := &job{call: call}
		switch err := protocol.Check(a.list, &j.call); {
		case cut:
			j.res = cutOff(j.call)
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
		if stop == nil {
			stop = t.runBatch(ctx, jobs[start:end])
		} else {
			t.refuse(jobs[start:end], stop)
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
	var wg sync.WaitGroup
	for _, j := range batch[:started] {
		if !j.run {
			continue
		}
		wg.Go(func() {
			begin := time.Now()
			j.res = a.tools.Run(ctx, j.call)
			j.res.CallID, j.res.Tool = j.call.ID, j.call.Name
			j.took = time.Since(begin)
		})
	}
	wg.Wait()
	for i, j := range batch {
		if i >= started {
			j.res, j.run = notRun(j.call, stop), false
		}
		t.finish(j)
		// Calls of this batch that ran are reported even after a hook
		// objects: they happened.
		if err := a.emit(Event{Kind: CallEnded, Step: t.step, Call: j.call, Writes: j.writes, Result: j.res, Ran: j.run, Duration: j.took}); err != nil && stop == nil {
			stop = err
		}
	}
	return stop
}

// refuse gives each job a result saying it was not run because of why.
func (t *turn) refuse(jobs []*job, why error) {
	for _, j := range jobs {
		if j.run {
			j.res, j.run = notRun(j.call, why), false
		}
		t.finish(j)
		t.agent.emit(Event{Kind: CallEnded, Step: t.step, Call: j.call, Writes: j.writes, Result: j.res})
	}
}

// finish appends a job's result to the conversation and the report.
func (t *turn) finish(j *job) {
	t.agent.edit(len(t.agent.msgs), j.res.Message())
	t.report.add(j, t.agent.cfg)
}

package chat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"harness/loop"
	"harness/view"
)

// ModelSpec is the run's model as -m names it: PROVIDER/MODEL, or the
// model's name alone when there are no providers (--fake).
func (c *Chat) ModelSpec() string {
	if c.Models == nil {
		return c.Backend().Model
	}
	return c.Models.Spec()
}

// ShowModels writes what the model is and what the providers offer: /model
// without a name.
func (c *Chat) ShowModels(ctx context.Context, out io.Writer) error {
	if c.Models == nil {
		b := c.Backend()
		fmt.Fprintf(out, "The model is %s, a scripted %s model: with --fake there are no providers, and /model has no other model to use.\n", b.Model, b.Name)
		return nil
	}
	fmt.Fprintf(out, "The model is %s. The providers offer:\n", c.ModelSpec())
	if err := writeOffers(out, c.Models.Offers(ctx), c.ModelSpec()); err != nil {
		return err
	}
	fmt.Fprintf(out, "/model PROVIDER/MODEL uses one of them from the next turn on; /model MODEL one of %s's.\n", c.Models.Provider())
	return nil
}

// writeOffers writes offers one model a line, as PROVIDER/MODEL, the one
// in use (spec) marked with a star, and one line for each provider that
// listed none, its error cut to its first line.
func writeOffers(w io.Writer, offers []Offer, spec string) error {
	var b strings.Builder
	for _, o := range offers {
		switch {
		case o.Err != nil:
			fmt.Fprintf(&b, "  %s: cannot list its models: %s\n", o.Provider, oneLine(o.Err.Error(), maxErrorLine))
		case len(o.Models) == 0:
			fmt.Fprintf(&b, "  %s: no models\n", o.Provider)
		}
		for _, m := range o.Models {
			mark := " "
			if o.Provider+"/"+m == spec {
				mark = "*"
			}
			fmt.Fprintf(&b, "%s %s/%s\n", mark, o.Provider, m)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// maxErrorLine bounds the bytes of an error that a listing shows.
const maxErrorLine = 160

// oneLine is the first line of s, cut to at most n bytes (and "…") at a
// character's start.
func oneLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// SwitchModel goes on with the model spec names between turns: the
// conversation goes on with it, from the next turn. A model its server
// says for certain it does not have is refused; another is taken at the
// server's word until the next request. What it did, or why not, is said
// on out.
func (c *Chat) SwitchModel(ctx context.Context, spec string, out io.Writer, st view.Style) error {
	if c.Models == nil || spec == "" {
		return c.ShowModels(ctx, out)
	}
	from := c.ModelSpec()
	b, use, err := c.Models.Pick(spec)
	if err != nil {
		fmt.Fprintf(out, "%v; the model is still %s.\n", err, from)
		return nil
	}
	if err := Check(ctx, b); CertainlyMissing(err) {
		fmt.Fprintf(out, "%s; the model is still %s.\n", Advice(err, true), from)
		return nil
	} else if err != nil {
		fmt.Fprintf(out, "%s %s\n", st.Bad("warning:"), Advice(err, true))
	}
	size, err := c.WindowFor(ctx, out, b)
	if err != nil {
		fmt.Fprintf(out, "%v; the model is still %s.\n", err, from)
		return nil
	}
	if err := c.useModel(b, use, size, out); err != nil {
		return err
	}
	agent, err := loop.Resume(c.Model, c.tools, c.Config, c.agent.State(), c.Hooks(c.ui(c.turn)...)...)
	if err != nil {
		return err
	}
	if c.conv.writer != nil {
		c.conv.writer.Follow(agent)
	}
	c.agent = agent
	if err := c.modelChanged(agent.State().Turn+1, from); err != nil {
		fmt.Fprintf(out, "%s %v\n", st.Bad("warning:"), err)
	}
	fmt.Fprintf(out, "The model is %s from the next turn on.\n", c.ModelSpec())
	return nil
}

// useModel makes b, which use makes the model in use, the run's model,
// with the tools built for it again (its helpers use it too), and a
// context window of size tokens.
func (c *Chat) useModel(b Backend, use func(), size int, out io.Writer) error {
	ts, err := c.ToolsFor(b)
	if err != nil {
		return err
	}
	c.Model = b
	c.tools = ts
	use()
	if size != c.Config.Window {
		fmt.Fprintf(out, "The context window is %d tokens, not %d, from the next turn on.\n", size, c.Config.Window)
		c.Config.Window, c.window.Size = size, size
	}
	return nil
}

// modelChanged records that the run's model, which was from, answers from
// turn on: in the run's records, in the session, and in what a new session
// of the run starts with. The record and the session name both as
// PROVIDER/MODEL, so that a resumed conversation finds the provider too.
func (c *Chat) modelChanged(turn int, from string) error {
	to := c.ModelSpec()
	b := c.Backend()
	c.conv.start.Model, c.conv.start.Backend, c.conv.start.Options = b.Model, b.Name, b.Options
	if from == to {
		return nil
	}
	var errs []error
	for _, r := range c.Records() {
		errs = append(errs, r.Model(turn, from, to))
	}
	if c.conv.writer != nil {
		errs = append(errs, c.conv.writer.Model(turn, from, to))
	}
	return errors.Join(errs...)
}

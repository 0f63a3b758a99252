package openai

import (
	"context"
	"time"
)

// SetSleep replaces how m waits before asking a busy server again.
func SetSleep(m *Model, f func(context.Context, time.Duration) error) { m.sleep = f }

// Command echo is the out-of-process component of mca's tests: a component
// of the test framework whose answers its parameters choose.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/mca/plugin"
	"github.com/gompi/gompi/params"
)

type echo struct {
	mca.BaseComponent
	priority params.Param[int]
	decline  params.Param[bool]
	fail     params.Param[string]
	crash    params.Param[string]
}

func (e *echo) RegisterParams(r *params.Registrar) error {
	if os.Getenv("GOMPI_TEST_ECHO_HANG") == "describe" {
		time.Sleep(time.Hour) // the host gives up and kills the process
	}
	e.priority = r.Int(params.Spec{Name: "answer", Default: "7", Level: 9, Help: "Priority the query answers"})
	e.decline = r.Bool(params.Spec{Name: "decline", Default: "false", Level: 9, Help: "Decline at open"})
	e.fail = r.String(params.Spec{Name: "fail", Default: "", Level: 9, Help: "Fail at open with this message"})
	e.crash = r.Enum(params.Spec{Name: "crash", Default: "never", Level: 9, Help: "Exit abruptly at this step",
		Values: []params.EnumValue{{Name: "never", Help: "do not"}, {Name: "open", Help: "in open"}, {Name: "query", Help: "in query"}}})
	return nil
}

var env *mca.Env

func (e *echo) Open(_ context.Context, en *mca.Env) error {
	env = en
	if e.crash.Get(en.Params) == "open" {
		panic("echo: crashing in open as asked")
	}
	if e.decline.Get(en.Params) {
		return fmt.Errorf("%w: asked to decline", mca.ErrDeclined)
	}
	if msg := e.fail.Get(en.Params); msg != "" {
		return fmt.Errorf("echo: %s", msg)
	}
	en.Logger.Info("opened", "answer", e.priority.Get(en.Params))
	return nil
}

func (e *echo) Query(context.Context, *mca.Env) (int, error) {
	if e.crash.Get(env.Params) == "query" {
		env.Logger.Error("crashing in query as asked")
		os.Exit(3)
	}
	return e.priority.Get(env.Params), nil
}

func main() {
	fmt.Println("a stray line on stdout before Serve")
	plugin.Serve(mca.Info{
		Framework: "test", Name: "echo", Version: mca.Version{Major: 1, Minor: 2},
		ModelVersion: mca.ModelVersion(), FrameworkVersion: mca.Version{Major: 2}, DefaultPriority: 5,
		New: func() mca.Component { return &echo{} },
	})
}

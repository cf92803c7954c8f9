// Package collplugin is the SDK of out-of-process coll decision
// components: a program that implements Decider and calls Serve becomes an
// executable mca_coll_<name> that gompi runs beside each rank and asks,
// once per communicator, which algorithm serves each collective at each
// message size. A minimal one:
//
//	type fixed struct{ collplugin.Base }
//
//	func (fixed) Rules(context.Context, collplugin.CommInfo) (*coll.Rules, error) {
//		return coll.NewRules([]coll.Rule{{Collective: "bcast", Ranks: coll.Any, Bytes: coll.Any, Algorithm: "linear"}})
//	}
//
//	func main() {
//		collplugin.Serve(collplugin.Info("fixed", mca.Version{Major: 1}, 50, func() collplugin.Decider { return &fixed{} }))
//	}
//
// Every rank asks its own plugin process: Rules must answer from what
// CommInfo says and the parameters, alike on every rank, or the host uses
// no rules for that communicator. See examples/plugins/mca_coll_rules.
package collplugin

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gompi/gompi/frameworks/coll"
	"github.com/gompi/gompi/frameworks/coll/collpb"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/mca/plugin"
)

// CommInfo is what every member of a communicator knows alike.
type CommInfo struct {
	Size int
	// Name is the communicator's name for logs: "world", "world.dup.1".
	Name string
}

// Decider is an out-of-process coll decision component: the MCA lifecycle
// (parameters, open, query, close, from mca.Component) and the rules of
// each communicator. A nil table leaves every collective to the built-in
// decision; an error is reported by the host with the plugin's path, which
// then stops asking it.
type Decider interface {
	mca.Component
	Rules(ctx context.Context, c CommInfo) (*coll.Rules, error)
}

// Base is what a Decider embeds: the MCA base's lifecycle, which it
// overrides as it needs.
type Base struct {
	mca.BaseComponent
}

// Info is the identity of a coll decision plugin built against this gompi,
// with its constructor; pass it to Serve.
func Info(name string, version mca.Version, priority int, newDecider func() Decider) mca.Info {
	return coll.Info(name, version, priority, func() mca.Component { return newDecider() })
}

// Serve runs the decider info describes until the host stops it, then
// exits the program.
func Serve(info mca.Info) {
	plugin.Serve(info, func(s *grpc.Server, c mca.Component) {
		d, ok := c.(Decider)
		if !ok {
			panic(fmt.Sprintf("collplugin: component %s is a %T, not a collplugin.Decider", info.Name, c))
		}
		collpb.RegisterDeciderServer(s, &server{d: d})
	})
}

type server struct {
	collpb.UnimplementedDeciderServer
	d Decider
}

func (s *server) Rules(ctx context.Context, in *collpb.CommInfo) (*collpb.RuleSet, error) {
	rules, err := s.d.Rules(ctx, CommInfo{Size: int(in.GetSize()), Name: in.GetName()})
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return coll.RulesToPB(rules), nil
}

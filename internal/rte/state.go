package rte

import (
	"context"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gompi/gompi/frameworks/ess"
	"github.com/gompi/gompi/internal/rte/rtepb"
)

// ServeState answers gompirun's requests for this rank's state with
// report, from a goroutine of its own, until ctx ends. A singleton has no
// gompirun to ask and serves nothing.
func (c *Client) ServeState(ctx context.Context, report func(stacks bool) ess.State) {
	if c.kv != nil {
		return
	}
	go func() {
		// The server closes the connection of a rank that stopped
		// answering (stopped in a debugger): once it runs again, it
		// watches on a new one. Another end (the client closed, the job
		// is ending) ends the watch.
		for c.watch(ctx, report) == codes.Unavailable && ctx.Err() == nil {
			time.Sleep(rewatchPause)
		}
	}()
}

// rewatchPause spaces the watches of a rank whose connection keeps
// failing: its job is ending, and the lifeline will end it.
const rewatchPause = 100 * time.Millisecond

// watch serves state requests until the stream ends, and returns the
// code it ended with.
func (c *Client) watch(ctx context.Context, report func(stacks bool) ess.State) codes.Code {
	stream, err := c.rpc.Watch(ctx, &rtepb.WatchRequest{Rank: int32(c.job.Rank)})
	if err != nil {
		return status.Code(err)
	}
	for {
		d, err := stream.Recv()
		if err != nil {
			return status.Code(err)
		}
		st := report(d.Stacks)
		_, _ = c.rpc.ReportState(ctx, stateReport(c.job.Rank, d.Id, st))
	}
}

func stateReport(rank int, id uint64, st ess.State) *rtepb.StateReport {
	r := &rtepb.StateReport{Rank: int32(rank), Id: id, UnexpectedTotal: int32(st.UnexpectedTotal), Stacks: st.Stacks}
	for _, o := range st.Ops {
		r.Ops = append(r.Ops, &rtepb.PendingOp{
			Kind: o.Kind, Peer: int32(o.Peer), PeerWorld: int32(o.PeerWorld), Tag: int32(o.Tag), Comm: o.Comm,
			Bytes: int64(o.Bytes), Collective: o.Collective, Call: o.Call, Site: o.Site, WaitedNs: int64(o.Waited),
		})
	}
	for _, m := range st.Unexpected {
		r.Unexpected = append(r.Unexpected, &rtepb.UnexpectedMessage{
			From: int32(m.From), FromWorld: int32(m.FromWorld), Tag: int32(m.Tag), Comm: m.Comm,
			Bytes: int64(m.Bytes), Collective: m.Collective, Probed: m.Probed,
		})
	}
	return r
}

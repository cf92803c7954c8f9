package rte

import (
	"context"

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
		stream, err := c.rpc.Watch(ctx, &rtepb.WatchRequest{Rank: int32(c.job.Rank)})
		if err != nil {
			return
		}
		for {
			d, err := stream.Recv()
			if err != nil {
				return // the job or this rank is ending
			}
			st := report(d.Stacks)
			_, _ = c.rpc.ReportState(ctx, stateReport(c.job.Rank, d.Id, st))
		}
	}()
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

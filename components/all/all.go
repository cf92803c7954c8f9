// Package all links every static framework and component into a program:
// blank-import it, the way database/sql drivers are imported.
package all

import (
	_ "github.com/gompi/gompi/frameworks/btl"
	_ "github.com/gompi/gompi/frameworks/coll"
	_ "github.com/gompi/gompi/frameworks/ess"
	_ "github.com/gompi/gompi/frameworks/plm"
	_ "github.com/gompi/gompi/frameworks/prof"

	_ "github.com/gompi/gompi/components/btl/self"
	_ "github.com/gompi/gompi/components/btl/sm"
	_ "github.com/gompi/gompi/components/btl/tcp"

	_ "github.com/gompi/gompi/components/coll/basic"
	_ "github.com/gompi/gompi/components/coll/han"
	_ "github.com/gompi/gompi/components/coll/self"
	_ "github.com/gompi/gompi/components/coll/sm"
	_ "github.com/gompi/gompi/components/coll/tuned"

	_ "github.com/gompi/gompi/components/ess/gompirun"
	_ "github.com/gompi/gompi/components/ess/pmi"
	_ "github.com/gompi/gompi/components/ess/singleton"

	_ "github.com/gompi/gompi/components/plm/rsh"
	_ "github.com/gompi/gompi/components/plm/slurm"

	_ "github.com/gompi/gompi/components/prof/stats"
	_ "github.com/gompi/gompi/components/prof/trace"
)

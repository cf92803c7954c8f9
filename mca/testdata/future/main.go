// Command future is a plugin built for the next major version of the
// component model: a host of this version must refuse it, naming both.
package main

import (
	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/gompi/gompi/mca"
)

func main() {
	sets := mca.PluginSets(func(*grpc.Server) {})
	hs := mca.PluginHandshake()
	hs.ProtocolVersion = mca.ModelMajor + 1
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig:  hs,
		VersionedPlugins: map[int]goplugin.PluginSet{mca.ModelMajor + 1: sets[mca.ModelMajor]},
		GRPCServer:       goplugin.DefaultGRPCServer,
	})
}

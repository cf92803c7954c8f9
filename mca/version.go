package mca

import "fmt"

// Version is a semantic version. Components and frameworks are compatible
// when their major versions match.
type Version struct {
	Major, Minor, Patch int
}

func (v Version) String() string {
	return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
}

// The version of the component model itself. A component built against
// another major version is refused at load.
const (
	ModelMajor = 1
	ModelMinor = 0
	ModelPatch = 0
)

// ModelVersion returns the component model's version.
func ModelVersion() Version { return Version{ModelMajor, ModelMinor, ModelPatch} }

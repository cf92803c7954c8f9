package apigen

import (
	"bytes"
	"fmt"
	"go/format"
	"slices"
	"strings"
)

// RecorderHandWritten are the calls the plugin layer (frameworks/prof's
// plugin_layer.go) writes by hand: they open, close or mark the stream.
var RecorderHandWritten = []string{"Init", "InitThread", "Finalize", "Pcontrol"}

// Recorder returns the source of the plugin layer's recording methods:
// for each function, one method that times the call and records it with
// what its arguments' names say (the peer, the tag, the bytes, the
// communicator), and the function's index in the Functions table.
func Recorder(fns []Function) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(header)
	b.WriteString("package prof\n\nimport \"github.com/gompi/gompi/pmpi\"\n\n")
	b.WriteString("// The index of each function in Functions, which the plugin layer's\n")
	b.WriteString("// events carry.\nconst (\n")
	for i, fn := range fns {
		if i == 0 {
			fmt.Fprintf(&b, "\tfn%s fnIndex = iota\n", fn.Name)
		} else {
			fmt.Fprintf(&b, "\tfn%s\n", fn.Name)
		}
	}
	b.WriteString(")\n\nvar _ pmpi.API = (*recorder)(nil)\n")
	for _, fn := range fns {
		if slices.Contains(RecorderHandWritten, fn.Name) {
			continue
		}
		if err := recordMethod(&b, fn); err != nil {
			return nil, fmt.Errorf("API.%s: %w", fn.Name, err)
		}
	}
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("gofmt: %w\n%s", err, b.Bytes())
	}
	return out, nil
}

// recordMethod writes one recording method.
func recordMethod(b *bytes.Buffer, fn Function) error {
	has := map[string]string{}
	var params, call []string
	for _, p := range fn.Params {
		if p.Name == "layer" || p.Name == "t0" || strings.HasPrefix(p.Name, "res") {
			return fmt.Errorf("argument %q collides with the method's own names", p.Name)
		}
		has[p.Name] = p.Type
		params = append(params, p.Name+" "+p.Type)
		call = append(call, p.Name)
	}
	var res []string
	for i := range fn.Results {
		res = append(res, fmt.Sprintf("res%d", i))
	}
	peer, tag, bytesExpr, comm, errExpr := "-1", "-1", "0", "nil", "nil"
	// The peer and tag as the call names them; Sendrecv's send half.
	for _, name := range []string{"dest", "source", "root"} {
		if has[name] == "int" {
			peer = name
			break
		}
	}
	for _, name := range []string{"tag", "sendtag"} {
		if has[name] == "int" {
			tag = name
			break
		}
	}
	// The bytes of the call's (send) buffer, from a count and its datatype.
	switch {
	case has["count"] == "int" && has["dt"] == "pmpi.Datatype":
		bytesExpr = "bytesOf(count, dt)"
	case has["sendcount"] == "int" && has["sendtype"] == "pmpi.Datatype":
		bytesExpr = "bytesOf(sendcount, sendtype)"
	case has["scount"] == "int" && has["sdt"] == "pmpi.Datatype":
		bytesExpr = "bytesOf(scount, sdt)"
	case has["scounts"] == "[]int" && has["sdt"] == "pmpi.Datatype":
		bytesExpr = "bytesOf(sum(scounts), sdt)"
	case has["scounts"] == "[]int" && has["stypes"] == "[]pmpi.Datatype":
		bytesExpr = "bytesOfEach(scounts, stypes)"
	case has["counts"] == "[]int" && has["dt"] == "pmpi.Datatype":
		bytesExpr = "bytesOf(sum(counts), dt)"
	case has["rcount"] == "int" && has["rdt"] == "pmpi.Datatype":
		bytesExpr = "bytesOf(rcount, rdt)"
	}
	if has["comm"] == "*pmpi.Comm" {
		comm = "comm"
	}
	if n := len(fn.Results); n > 0 && fn.Results[n-1] == "error" {
		errExpr = fmt.Sprintf("res%d", n-1)
	}
	fmt.Fprintf(b, "\n// %s records the call and passes it down.\n", fn.Name)
	fmt.Fprintf(b, "func (layer *recorder) %s(%s) %s {\n", fn.Name, strings.Join(params, ", "), results(fn.Results))
	b.WriteString("\tt0 := layer.begin()\n\t")
	if len(res) > 0 {
		fmt.Fprintf(b, "%s := ", strings.Join(res, ", "))
	}
	fmt.Fprintf(b, "layer.Next.%s(%s)\n", fn.Name, strings.Join(call, ", "))
	fmt.Fprintf(b, "\tlayer.record(t0, fn%s, %s, %s, %s, %s, %s)\n", fn.Name, peer, tag, bytesExpr, comm, errExpr)
	if len(res) > 0 {
		fmt.Fprintf(b, "\treturn %s\n", strings.Join(res, ", "))
	}
	b.WriteString("}\n")
	return nil
}

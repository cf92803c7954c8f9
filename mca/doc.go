// Package mca is gompi's Modular Component Architecture: the registry of
// frameworks and components, the lifecycle every component goes through,
// the selection parameters that choose among them, and the host of
// out-of-process components. It knows no framework and no component.
//
// # Registering
//
// A framework package registers its FrameworkSpec from init with
// RegisterFramework: its name (lower-case letters and digits, no '_'), its
// API version, an Accepts check that a component implements the
// framework's interface, whether it is opt-in, and whether it takes
// plugins. A component registers an Info from init with Register, under
// the full name mca_<framework>_<component>:
//
//	var info = btl.Info("tcp", mca.Version{Major: 1}, 20,
//		func() mca.Component { return &Component{} })
//
//	func init() { mca.Register(info) }
//
// Info is the component's identity as data (framework, name, version,
// the component model and framework API versions it was built for, default
// priority, origin) and a constructor with no side effects. The registry
// holds Infos, not components: each System builds its own components, so
// no component state is shared between systems in one process. Register
// and RegisterFramework panic on a programming error (a malformed or
// reserved name, a nil constructor, a framework nobody registered, a
// duplicate), naming both registrants by function, file and line.
//
// # The component
//
// Every component implements Component, almost always by embedding its
// framework's base component, which embeds BaseComponent:
//
//   - RegisterParams(r) registers the component's parameters through a
//     params.Registrar scoped to <framework>_<component>_. It must do
//     nothing else: it also runs under gompi_info, for components that
//     never open. Default: registers nothing.
//   - Open(ctx, env) prepares the component to run: acquire what it needs,
//     check that the machine allows it. Default: does nothing.
//   - Query(ctx, env) says whether the component runs, and at which
//     priority. Default: accepts with env.Priority.
//   - Close() releases what Open and Query acquired. Default: does nothing.
//
// A component overrides only the hooks it needs. Info.Instantiate stamps
// the identity into the embedded BaseComponent, so a component never
// writes it. Each framework adds its own hooks on top (btl: Init returning
// modules; coll: a query per communicator; prof: Wrap).
//
// Open and Query receive an Env: the resolved parameter Snapshot, a logger
// named <framework>.<component> at the framework's level, the resolved
// <framework>_<component>_priority, and Requested, true when the user
// named the component in the framework's include list.
//
// # The lifecycle
//
// New instantiates every registered framework and component and, for each
// component, runs the load checks and RegisterParams; it reads no
// parameter source. System.Resolve then finds the out-of-process
// components on mca_base_component_path and loads them the same way,
// reads every parameter source once, and parses each framework's
// selection parameter. A framework then goes through Framework.Open,
// Framework.Select and Framework.Close, in that order, each once:
//
//   - Load. A component built for another major version of the
//     component model (ModelMajor) or of its framework's API, one that the
//     framework's Accepts check rejects, or one whose RegisterParams fails
//     is refused: it is listed by Framework.Components with the reason,
//     reported as a warning by Resolve, and never opened. Resolve fails
//     with a ComponentError of step "load" if the user asked for a refused
//     component by name.
//   - Check. Resolve calls CheckParams of every loaded component that is a
//     ParamChecker, that the selection allows and whose priority does not
//     disable it, and fails with a ComponentError of step "parameters" if
//     one refuses: its parameters disagree with each other. gompirun
//     resolves too, so it says so before any rank starts.
//   - Open. Every loaded component the selection allows is opened: the
//     linked components in name order, then the plugins.
//   - Query. Select queries every open component and returns those that
//     accept, highest priority first (ties in open order). What the
//     framework does with them is its own: btl keeps them all, prof stacks
//     them in the order of its selection.
//   - Close. Framework.Close closes every component that is still open, in
//     reverse open order, and may be called more than once. A Close that
//     fails is reported as a ComponentError with step "close".
//
// An Open or Query that returns an error wrapping ErrDeclined declines:
// the component does not run in this process, and is closed at once. That
// is logged at debug level, or as a warning when the user asked for it by
// name; either way the framework goes on.
//
// An Open or Query that returns any other error fails: the component is
// closed at once and the failure is kept (Framework.Failures). If the user
// asked for it by name, or the error is marked with Fatal (the user's
// configuration of the component is wrong, and running without it would
// hide that), the step fails with a ComponentError, after every other
// component has had its turn, and every component still open is closed in
// reverse open order. Otherwise the failure is a warning and the framework
// goes on without the component. The ComponentError is the one place that
// names the component and the step ("btl tcp: open: ..."): components
// return their errors without their own name, and the sentinels
// (ErrComponentFailed, ErrFatal) match with errors.Is without adding
// their text to the message.
//
// So Close runs exactly once for every component whose Open was called,
// whether Open or Query then failed or declined or the component ran to
// the end. Open requires a resolved framework and Select an opened one;
// a framework once closed is not opened again.
//
// # Selection
//
// Each framework has a selection parameter named after it (btl, coll,
// prof): "a,b" allows only a and b, "^a,b" all but a and b, and an empty
// value all, except in an opt-in framework (FrameworkSpec.OptIn: prof),
// where it allows none. A '^' anywhere but first is ErrSelection; a name
// in an include list that no component has is ErrUnknownComponent,
// listing those that exist; in an exclude list it is a warning. An
// exclude list that leaves no component is ErrSelection. Every
// framework also has <framework>_base_verbose, its logger's level (see
// LogLevel), and each component <framework>_<component>_priority.
//
// # Out-of-process components
//
// An executable named mca_<framework>_<component> on
// mca_base_component_path is a component that runs in its own process,
// spoken to over gRPC through hashicorp/go-plugin (package mca/plugin is
// the SDK such an executable is built with). Resolve starts each one once
// to ask for its description (identity and parameters) and loads it like a
// linked component; a built-in component wins over a plugin of the same
// name, and the first directory of the path wins a name. A framework that
// takes plugins sets FrameworkSpec.Plugin, an adapter that wraps a Plugin
// in a component of the framework: Plugin runs the lifecycle over the
// generic Component service, starting the process at Open and stopping it
// at Close, and the adapter speaks the framework's own service over
// Plugin.Conn. Every failure of a plugin matches ErrPlugin and names its
// executable, the step and its last lines on stderr; one that fails after
// Open is marked dead (Plugin.Fail, Plugin.Dead), and its framework goes
// on without it where it can.
package mca

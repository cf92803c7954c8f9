package pmpi

import "fmt"

// ErrorClass is an MPI error class.
type ErrorClass int

// Error classes, as MPI names them. New ones go at the end: a class
// crosses the wire by its number (a leader's error in intercommunicator
// creation).
const (
	ClassBuffer ErrorClass = iota + 1
	ClassCount
	ClassType
	ClassTag
	ClassComm
	ClassRank
	ClassRequest
	ClassArg
	ClassTruncate
	ClassOther
	ClassIntern
	ClassProcFailed
	ClassInStatus
	ClassOp
	ClassRoot
	ClassGroup
	ClassTopology
	ClassDims
	ClassKeyval
	ClassInfoKey
	ClassInfoValue
	ClassInfoNokey
)

var classNames = map[ErrorClass]string{
	ClassBuffer: "MPI_ERR_BUFFER", ClassCount: "MPI_ERR_COUNT", ClassType: "MPI_ERR_TYPE",
	ClassTag: "MPI_ERR_TAG", ClassComm: "MPI_ERR_COMM", ClassRank: "MPI_ERR_RANK",
	ClassRequest: "MPI_ERR_REQUEST", ClassArg: "MPI_ERR_ARG", ClassTruncate: "MPI_ERR_TRUNCATE",
	ClassOther: "MPI_ERR_OTHER", ClassIntern: "MPI_ERR_INTERN", ClassProcFailed: "MPI_ERR_PROC_FAILED",
	ClassInStatus: "MPI_ERR_IN_STATUS", ClassOp: "MPI_ERR_OP", ClassRoot: "MPI_ERR_ROOT", ClassGroup: "MPI_ERR_GROUP",
	ClassTopology: "MPI_ERR_TOPOLOGY", ClassDims: "MPI_ERR_DIMS", ClassKeyval: "MPI_ERR_KEYVAL",
	ClassInfoKey: "MPI_ERR_INFO_KEY", ClassInfoValue: "MPI_ERR_INFO_VALUE", ClassInfoNokey: "MPI_ERR_INFO_NOKEY",
}

func (c ErrorClass) String() string {
	if n, ok := classNames[c]; ok {
		return n
	}
	return fmt.Sprintf("ErrorClass(%d)", int(c))
}

// Error is an MPI error: a class that errors.Is compares with the
// sentinels below, a message saying what was wrong, and maybe a cause.
type Error struct {
	Class ErrorClass
	Msg   string
	Err   error
}

func (e *Error) Error() string {
	switch {
	case e.Msg == "":
		return e.Class.String()
	case e.Err != nil:
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

// Is matches a sentinel of the same class.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Msg == "" && t.Err == nil && t.Class == e.Class
}

func (e *Error) Unwrap() error { return e.Err }

// Sentinels for errors.Is: errors.Is(err, pmpi.ErrTruncate).
var (
	ErrBuffer     = &Error{Class: ClassBuffer}
	ErrCount      = &Error{Class: ClassCount}
	ErrType       = &Error{Class: ClassType}
	ErrTag        = &Error{Class: ClassTag}
	ErrComm       = &Error{Class: ClassComm}
	ErrRank       = &Error{Class: ClassRank}
	ErrRequest    = &Error{Class: ClassRequest}
	ErrArg        = &Error{Class: ClassArg}
	ErrTruncate   = &Error{Class: ClassTruncate}
	ErrOther      = &Error{Class: ClassOther}
	ErrIntern     = &Error{Class: ClassIntern}
	ErrProcFailed = &Error{Class: ClassProcFailed}
	ErrInStatus   = &Error{Class: ClassInStatus}
	ErrOp         = &Error{Class: ClassOp}
	ErrRoot       = &Error{Class: ClassRoot}
	ErrGroup      = &Error{Class: ClassGroup}
	ErrTopology   = &Error{Class: ClassTopology}
	ErrDims       = &Error{Class: ClassDims}
	ErrKeyval     = &Error{Class: ClassKeyval}
	ErrInfoKey    = &Error{Class: ClassInfoKey}
	ErrInfoValue  = &Error{Class: ClassInfoValue}
	ErrInfoNokey  = &Error{Class: ClassInfoNokey}
)

func errorf(class ErrorClass, cause error, format string, args ...any) *Error {
	return &Error{Class: class, Msg: fmt.Sprintf(format, args...), Err: cause}
}

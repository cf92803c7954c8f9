//go:build pmix && cgo

package pmix

/*
#cgo pkg-config: pmix
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

static pmix_proc_t gompi_me;

static int gompi_init(int *rank) {
	pmix_status_t rc = PMIx_Init(&gompi_me, NULL, 0);
	*rank = (int)gompi_me.rank;
	return rc;
}

static const char *gompi_nspace(void) { return gompi_me.nspace; }

// gompi_get_uint reads a number of a rank (-1: the job's).
static int gompi_get_uint(int rank, const char *key, unsigned long *out) {
	pmix_proc_t p;
	PMIX_LOAD_PROCID(&p, gompi_me.nspace, rank < 0 ? PMIX_RANK_WILDCARD : (pmix_rank_t)rank);
	pmix_value_t *v = NULL;
	pmix_status_t rc = PMIx_Get(&p, key, NULL, 0, &v);
	if (rc != PMIX_SUCCESS) return rc;
	switch (v->type) {
	case PMIX_UINT32: *out = v->data.uint32; break;
	case PMIX_UINT16: *out = v->data.uint16; break;
	case PMIX_UINT64: *out = v->data.uint64; break;
	case PMIX_UINT: *out = v->data.uint; break;
	case PMIX_INT: *out = (unsigned long)v->data.integer; break;
	case PMIX_PROC_RANK: *out = v->data.rank; break;
	default: rc = PMIX_ERR_TYPE_MISMATCH;
	}
	PMIX_VALUE_RELEASE(v);
	return rc;
}

static int gompi_put(const char *key, void *data, size_t n) {
	pmix_value_t v;
	PMIX_VALUE_CONSTRUCT(&v);
	v.type = PMIX_BYTE_OBJECT;
	v.data.bo.bytes = (char *)data;
	v.data.bo.size = n;
	return PMIx_Put(PMIX_GLOBAL, key, &v); // copies the value
}

static int gompi_fence(void) {
	pmix_status_t rc = PMIx_Commit();
	if (rc != PMIX_SUCCESS) return rc;
	pmix_info_t info;
	bool collect = true;
	PMIX_INFO_CONSTRUCT(&info);
	PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
	rc = PMIx_Fence(NULL, 0, &info, 1);
	PMIX_INFO_DESTRUCT(&info);
	return rc;
}

// gompi_get_bytes reads what rank put under key, in a buffer the caller frees.
static int gompi_get_bytes(int rank, const char *key, char **data, size_t *n) {
	pmix_proc_t p;
	PMIX_LOAD_PROCID(&p, gompi_me.nspace, (pmix_rank_t)rank);
	pmix_value_t *v = NULL;
	pmix_status_t rc = PMIx_Get(&p, key, NULL, 0, &v);
	if (rc != PMIX_SUCCESS) return rc;
	if (v->type != PMIX_BYTE_OBJECT) {
		PMIX_VALUE_RELEASE(v);
		return PMIX_ERR_TYPE_MISMATCH;
	}
	*n = v->data.bo.size;
	*data = malloc(*n ? *n : 1);
	if (*n) memcpy(*data, v->data.bo.bytes, *n);
	PMIX_VALUE_RELEASE(v);
	return PMIX_SUCCESS;
}

static int gompi_abort(int code, const char *msg) { return PMIx_Abort(code, msg, NULL, 0); }
static int gompi_finalize(void) { return PMIx_Finalize(NULL, 0); }
*/
import "C"

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"unsafe"

	"github.com/gompi/gompi/frameworks/ess"
	"github.com/gompi/gompi/mca"
)

// info: above pmi (a launcher that serves both sets both environments),
// below gompirun's.
var info = ess.Info("pmix", mca.Version{Major: 1}, 60, func() mca.Component { return &Component{} })

func init() { mca.Register(info) }

// Component is the pmix ess component.
type Component struct {
	ess.BaseComponent
	rank      int  // set by Query's PMIx_Init
	inited    bool // PMIx_Init succeeded
	connected bool // Connect made the runtime, which now finalizes
}

// pmixError is a PMIx status as an error.
func pmixError(op string, rc C.int) error {
	return fmt.Errorf("%s: %s (PMIx status %d)", op, C.GoString(C.PMIx_Error_string(C.pmix_status_t(rc))), int(rc))
}

// Query initializes PMIx where a PMIx server started the process.
func (c *Component) Query(_ context.Context, env *mca.Env) (int, error) {
	if os.Getenv("PMIX_NAMESPACE") == "" {
		return 0, ess.ErrNotLaunched
	}
	var rank C.int
	if rc := C.gompi_init(&rank); rc != C.PMIX_SUCCESS {
		return 0, mca.Fatal(fmt.Errorf("PMIX_NAMESPACE is set but %w", pmixError("PMIx_Init", rc)))
	}
	c.rank, c.inited = int(rank), true
	return env.Priority, nil
}

// Close finalizes PMIx for a component that was queried but not selected.
func (c *Component) Close() error {
	if c.inited && !c.connected {
		if rc := C.gompi_finalize(); rc != C.PMIX_SUCCESS {
			return pmixError("PMIx_Finalize", rc)
		}
	}
	return nil
}

// Connect joins the job: the layout from the server, and rank 0 deals
// the job's secret through the exchange.
func (c *Component) Connect(context.Context) (ess.Runtime, error) {
	if !c.inited {
		return nil, errors.New("not queried: PMIx is not initialized")
	}
	c.connected = true
	rt, err := newRuntime(c.rank)
	if err != nil {
		msg := C.CString(err.Error())
		C.gompi_abort(1, msg)
		C.free(unsafe.Pointer(msg))
		return nil, err
	}
	return rt, nil
}

// runtime is a rank's job through PMIx. PMIx is thread-safe.
type runtime struct{ job ess.Job }

const secretKey = "gompi.secret"

func getUint(rank int, key string) (int, error) {
	ck := C.CString(key)
	defer C.free(unsafe.Pointer(ck))
	var v C.ulong
	if rc := C.gompi_get_uint(C.int(rank), ck, &v); rc != C.PMIX_SUCCESS {
		return 0, pmixError("PMIx_Get "+key, rc)
	}
	return int(v), nil
}

func newRuntime(rank int) (*runtime, error) {
	host, _ := os.Hostname()
	nspace := C.GoString(C.gompi_nspace())
	sum := sha256.Sum256([]byte(nspace))
	rt := &runtime{job: ess.Job{Rank: rank, JobID: hex.EncodeToString(sum[:4]), Hostname: host}}
	var err error
	if rt.job.Size, err = getUint(-1, C.PMIX_JOB_SIZE); err != nil {
		return nil, err
	}
	if rt.job.LocalRank, err = getUint(rank, C.PMIX_LOCAL_RANK); err != nil {
		return nil, err
	}
	if rt.job.LocalSize, err = getUint(-1, C.PMIX_LOCAL_SIZE); err != nil {
		return nil, err
	}
	if appnum, err := getUint(rank, C.PMIX_APPNUM); err == nil {
		rt.job.AppNum = appnum
	}
	if rank == 0 {
		secret := make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			return nil, fmt.Errorf("making the job secret: %w", err)
		}
		if err := rt.Put(context.Background(), secretKey, secret); err != nil {
			return nil, err
		}
	}
	if err := rt.Fence(context.Background()); err != nil {
		return nil, err
	}
	if rt.job.Secret, err = rt.Get(context.Background(), 0, secretKey); err != nil {
		return nil, fmt.Errorf("the job secret from rank 0: %w", err)
	}
	return rt, nil
}

func (rt *runtime) Job() ess.Job {
	j := rt.job
	j.Secret = append([]byte(nil), rt.job.Secret...)
	return j
}

func (rt *runtime) Put(_ context.Context, key string, value []byte) error {
	ck := C.CString(key)
	defer C.free(unsafe.Pointer(ck))
	data := C.CBytes(value) // PMIx_Put copies; C memory, since the pointer outlives no call
	defer C.free(data)
	if rc := C.gompi_put(ck, data, C.size_t(len(value))); rc != C.PMIX_SUCCESS {
		return pmixError("PMIx_Put "+key, rc)
	}
	return nil
}

func (rt *runtime) Fence(context.Context) error {
	if rc := C.gompi_fence(); rc != C.PMIX_SUCCESS {
		return pmixError("PMIx_Fence", rc)
	}
	return nil
}

func (rt *runtime) Get(_ context.Context, rank int, key string) ([]byte, error) {
	if rank < 0 || rank >= rt.job.Size {
		return nil, fmt.Errorf("rank %d is out of range 0..%d", rank, rt.job.Size-1)
	}
	ck := C.CString(key)
	defer C.free(unsafe.Pointer(ck))
	var data *C.char
	var n C.size_t
	if rc := C.gompi_get_bytes(C.int(rank), ck, &data, &n); rc != C.PMIX_SUCCESS {
		return nil, fmt.Errorf("key %q of rank %d: %w", key, rank, pmixError("PMIx_Get", rc))
	}
	defer C.free(unsafe.Pointer(data))
	return C.GoBytes(unsafe.Pointer(data), C.int(n)), nil
}

// Abort prints why, as the pmi component does, then asks the server to
// end the job.
func (rt *runtime) Abort(_ context.Context, code int, msg string, _ []int) error {
	fmt.Fprintf(os.Stderr, "gompi: rank %d: %s\n", rt.job.Rank, msg)
	cm := C.CString(msg)
	defer C.free(unsafe.Pointer(cm))
	if rc := C.gompi_abort(C.int(code), cm); rc != C.PMIX_SUCCESS {
		return pmixError("PMIx_Abort", rc)
	}
	return nil
}

func (rt *runtime) Finalize(context.Context) error {
	if rc := C.gompi_finalize(); rc != C.PMIX_SUCCESS {
		return pmixError("PMIx_Finalize", rc)
	}
	return nil
}

// Close does nothing: Finalize (or Abort) ends the connection.
func (rt *runtime) Close() error { return nil }

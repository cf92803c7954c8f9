package pmpi

import (
	"slices"
	"sync"
)

// Limits of an Info's keys and values, in bytes (MPI_MAX_INFO_KEY and
// MPI_MAX_INFO_VAL, as MPICH sets them).
const (
	MaxInfoKey = 255
	MaxInfoVal = 1024
)

// Info is an ordered set of string keys and values (MPI_Info): hints a
// program gives gompi, and those gompi reports back. A nil *Info is
// MPI_INFO_NULL. It is safe for concurrent use.
type Info struct {
	mu    sync.Mutex
	keys  []string // in the order they were first set, for NthKey
	vals  map[string]string
	freed bool
}

// InfoCreate returns a new, empty Info (MPI_Info_create).
func (*realAPI) InfoCreate() *Info { return &Info{vals: map[string]string{}} }

// lock locks i if it is a valid Info, and says what is wrong otherwise.
func (i *Info) lock(op string) error {
	if i == nil {
		return errorf(ClassArg, nil, "%s: the info is nil (MPI_INFO_NULL: use InfoCreate)", op)
	}
	i.mu.Lock()
	if i.freed {
		i.mu.Unlock()
		return errorf(ClassArg, nil, "%s: the info was freed", op)
	}
	return nil
}

func checkInfoKey(op, key string) error {
	if key == "" || len(key) > MaxInfoKey {
		return errorf(ClassInfoKey, nil, "%s: key %q has %d bytes (want 1 to %d)", op, key, len(key), MaxInfoKey)
	}
	return nil
}

// InfoSet stores value under key, replacing any value it had (MPI_Info_set).
func (*realAPI) InfoSet(i *Info, key, value string) error {
	const op = "info set"
	if err := checkInfoKey(op, key); err != nil {
		return err
	}
	if value == "" || len(value) > MaxInfoVal {
		return errorf(ClassInfoValue, nil, "%s: the value of key %q has %d bytes (want 1 to %d)", op, key, len(value), MaxInfoVal)
	}
	if err := i.lock(op); err != nil {
		return err
	}
	defer i.mu.Unlock()
	if _, ok := i.vals[key]; !ok {
		i.keys = append(i.keys, key)
	}
	i.vals[key] = value
	return nil
}

// InfoGet returns key's value and whether it has one (MPI_Info_get_string).
func (*realAPI) InfoGet(i *Info, key string) (string, bool, error) {
	const op = "info get"
	if err := checkInfoKey(op, key); err != nil {
		return "", false, err
	}
	if err := i.lock(op); err != nil {
		return "", false, err
	}
	defer i.mu.Unlock()
	v, ok := i.vals[key]
	return v, ok, nil
}

// InfoDelete removes key; it fails if key has no value (MPI_Info_delete,
// MPI_ERR_INFO_NOKEY).
func (*realAPI) InfoDelete(i *Info, key string) error {
	const op = "info delete"
	if err := checkInfoKey(op, key); err != nil {
		return err
	}
	if err := i.lock(op); err != nil {
		return err
	}
	defer i.mu.Unlock()
	if _, ok := i.vals[key]; !ok {
		return errorf(ClassInfoNokey, nil, "%s: key %q is not set", op, key)
	}
	delete(i.vals, key)
	i.keys = slices.DeleteFunc(i.keys, func(k string) bool { return k == key })
	return nil
}

// InfoGetNkeys returns how many keys have a value (MPI_Info_get_nkeys).
func (*realAPI) InfoGetNkeys(i *Info) (int, error) {
	if err := i.lock("info get nkeys"); err != nil {
		return 0, err
	}
	defer i.mu.Unlock()
	return len(i.keys), nil
}

// InfoGetNthkey returns the n-th key, from 0, in the order keys were first set
// (MPI_Info_get_nthkey).
func (*realAPI) InfoGetNthkey(i *Info, n int) (string, error) {
	const op = "info get nthkey"
	if err := i.lock(op); err != nil {
		return "", err
	}
	defer i.mu.Unlock()
	if n < 0 || n >= len(i.keys) {
		return "", errorf(ClassArg, nil, "%s: key %d is out of range (the info has %d keys: want 0 to %d)", op, n, len(i.keys), len(i.keys)-1)
	}
	return i.keys[n], nil
}

// InfoDup returns a new Info with i's keys and values (MPI_Info_dup).
func (*realAPI) InfoDup(i *Info) (*Info, error) {
	if err := i.lock("info dup"); err != nil {
		return nil, err
	}
	defer i.mu.Unlock()
	return &Info{keys: slices.Clone(i.keys), vals: copyMap(i.vals)}, nil
}

// InfoFree releases i (MPI_Info_free): later calls with it fail.
func (*realAPI) InfoFree(i *Info) error {
	if err := i.lock("info free"); err != nil {
		return err
	}
	defer i.mu.Unlock()
	i.freed, i.keys, i.vals = true, nil, nil
	return nil
}

func copyMap(m map[string]string) map[string]string {
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

package stats

import "github.com/gompi/gompi/pmpi"

// The datatype and Info calls count their time, which a large Pack or a
// type of many blocks makes real; Pack and Unpack, and their external
// forms, count the bytes of data they copy. None names a communicator or
// a peer. PackSize and the datatype attributes only read or change what
// the rank holds, and are not counted, as the communicator's attributes
// are not.

// timedOne counts the time of a call that returns one value.
func timedOne[T any](m *module, f fn, call func() (T, error)) (T, error) {
	var v T
	err := m.timed(f, func() (err error) {
		v, err = call()
		return err
	})
	return v, err
}

// packed counts a (un)pack of count elements of dt: its time and bytes.
func (m *module) packed(f fn, count int, dt pmpi.Datatype, call func() (int, error)) (int, error) {
	t0 := m.begin()
	pos, err := call()
	if t0 >= 0 {
		m.end(f, t0, int64(count*dt.Size()), nil, -1)
	}
	return pos, err
}

func (m *module) TypeContiguous(count int, old pmpi.Datatype) (pmpi.Datatype, error) {
	return timedOne(m, fnTypeContiguous, func() (pmpi.Datatype, error) { return m.Next.TypeContiguous(count, old) })
}

func (m *module) TypeVector(count, blocklen, stride int, old pmpi.Datatype) (pmpi.Datatype, error) {
	return timedOne(m, fnTypeVector, func() (pmpi.Datatype, error) { return m.Next.TypeVector(count, blocklen, stride, old) })
}

func (m *module) TypeHvector(count, blocklen, stride int, old pmpi.Datatype) (pmpi.Datatype, error) {
	return timedOne(m, fnTypeHvector, func() (pmpi.Datatype, error) { return m.Next.TypeHvector(count, blocklen, stride, old) })
}

func (m *module) TypeIndexed(blocklens, displs []int, old pmpi.Datatype) (pmpi.Datatype, error) {
	return timedOne(m, fnTypeIndexed, func() (pmpi.Datatype, error) { return m.Next.TypeIndexed(blocklens, displs, old) })
}

func (m *module) TypeHindexed(blocklens, displs []int, old pmpi.Datatype) (pmpi.Datatype, error) {
	return timedOne(m, fnTypeHindexed, func() (pmpi.Datatype, error) { return m.Next.TypeHindexed(blocklens, displs, old) })
}

func (m *module) TypeIndexedBlock(blocklen int, displs []int, old pmpi.Datatype) (pmpi.Datatype, error) {
	return timedOne(m, fnTypeIndexedBlock, func() (pmpi.Datatype, error) { return m.Next.TypeIndexedBlock(blocklen, displs, old) })
}

func (m *module) TypeHindexedBlock(blocklen int, displs []int, old pmpi.Datatype) (pmpi.Datatype, error) {
	return timedOne(m, fnTypeHindexedBlock, func() (pmpi.Datatype, error) { return m.Next.TypeHindexedBlock(blocklen, displs, old) })
}

func (m *module) TypeSubarray(sizes, subsizes, starts []int, order pmpi.Order, old pmpi.Datatype) (pmpi.Datatype, error) {
	return timedOne(m, fnTypeSubarray, func() (pmpi.Datatype, error) { return m.Next.TypeSubarray(sizes, subsizes, starts, order, old) })
}

func (m *module) TypeDarray(size, rank int, gsizes []int, distribs []pmpi.Distribution, dargs, psizes []int, order pmpi.Order, old pmpi.Datatype) (pmpi.Datatype, error) {
	return timedOne(m, fnTypeDarray, func() (pmpi.Datatype, error) {
		return m.Next.TypeDarray(size, rank, gsizes, distribs, dargs, psizes, order, old)
	})
}

func (m *module) TypeResized(old pmpi.Datatype, lb, extent int) (pmpi.Datatype, error) {
	return timedOne(m, fnTypeResized, func() (pmpi.Datatype, error) { return m.Next.TypeResized(old, lb, extent) })
}

func (m *module) TypeStruct(blocklens, displs []int, types []pmpi.Datatype) (pmpi.Datatype, error) {
	return timedOne(m, fnTypeStruct, func() (pmpi.Datatype, error) { return m.Next.TypeStruct(blocklens, displs, types) })
}

func (m *module) TypeDup(dt pmpi.Datatype) (pmpi.Datatype, error) {
	return timedOne(m, fnTypeDup, func() (pmpi.Datatype, error) { return m.Next.TypeDup(dt) })
}

func (m *module) TypeCommit(dt pmpi.Datatype) error {
	return m.timed(fnTypeCommit, func() error { return m.Next.TypeCommit(dt) })
}

func (m *module) TypeFree(dt pmpi.Datatype) error {
	return m.timed(fnTypeFree, func() error { return m.Next.TypeFree(dt) })
}

func (m *module) Pack(in []byte, count int, dt pmpi.Datatype, out []byte, pos int) (int, error) {
	return m.packed(fnPack, count, dt, func() (int, error) { return m.Next.Pack(in, count, dt, out, pos) })
}

func (m *module) Unpack(in []byte, pos int, out []byte, count int, dt pmpi.Datatype) (int, error) {
	return m.packed(fnUnpack, count, dt, func() (int, error) { return m.Next.Unpack(in, pos, out, count, dt) })
}

func (m *module) PackExternal(datarep string, in []byte, count int, dt pmpi.Datatype, out []byte, pos int) (int, error) {
	return m.packed(fnPackExternal, count, dt, func() (int, error) { return m.Next.PackExternal(datarep, in, count, dt, out, pos) })
}

func (m *module) UnpackExternal(datarep string, in []byte, pos int, out []byte, count int, dt pmpi.Datatype) (int, error) {
	return m.packed(fnUnpackExternal, count, dt, func() (int, error) { return m.Next.UnpackExternal(datarep, in, pos, out, count, dt) })
}

func (m *module) InfoCreate() *pmpi.Info {
	info, _ := timedOne(m, fnInfoCreate, func() (*pmpi.Info, error) { return m.Next.InfoCreate(), nil })
	return info
}

func (m *module) InfoSet(info *pmpi.Info, key, value string) error {
	return m.timed(fnInfoSet, func() error { return m.Next.InfoSet(info, key, value) })
}

func (m *module) InfoGet(info *pmpi.Info, key string) (string, bool, error) {
	var v string
	var ok bool
	err := m.timed(fnInfoGet, func() (err error) {
		v, ok, err = m.Next.InfoGet(info, key)
		return err
	})
	return v, ok, err
}

func (m *module) InfoDelete(info *pmpi.Info, key string) error {
	return m.timed(fnInfoDelete, func() error { return m.Next.InfoDelete(info, key) })
}

func (m *module) InfoGetNkeys(info *pmpi.Info) (int, error) {
	return timedOne(m, fnInfoGetNkeys, func() (int, error) { return m.Next.InfoGetNkeys(info) })
}

func (m *module) InfoGetNthkey(info *pmpi.Info, n int) (string, error) {
	return timedOne(m, fnInfoGetNthkey, func() (string, error) { return m.Next.InfoGetNthkey(info, n) })
}

func (m *module) InfoDup(info *pmpi.Info) (*pmpi.Info, error) {
	return timedOne(m, fnInfoDup, func() (*pmpi.Info, error) { return m.Next.InfoDup(info) })
}

func (m *module) InfoFree(info *pmpi.Info) error {
	return m.timed(fnInfoFree, func() error { return m.Next.InfoFree(info) })
}

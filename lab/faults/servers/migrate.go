package servers

import (
	"fmt"
	"strings"
)

// Migration is a Cluster slot marked as in migration from one master to
// another, with no key moved yet: the source answers for the keys it
// still has and redirects (ASK) for the others, as during a resharding.
type Migration struct {
	slot     string
	from, to *Redis
}

// StartMigration marks the slot of key as migrating from its master to
// another master (IMPORTING on the destination first, then MIGRATING on
// the source, the order redis-cli --cluster reshard uses).
func (c *Cluster) StartMigration(key string) (*Migration, error) {
	from, err := c.MasterOf(key)
	if err != nil {
		return nil, err
	}
	var to *Redis
	for _, n := range c.Nodes {
		if n == from || !n.srv.Running() {
			continue
		}
		if role, err := Command(n.Addr(), "ROLE"); err == nil && strings.HasPrefix(role, "master") {
			to = n
			break
		}
	}
	if to == nil {
		return nil, fmt.Errorf("no other master to migrate the slot of %q to", key)
	}
	slot, err := Command(from.Addr(), "CLUSTER", "KEYSLOT", key)
	if err != nil {
		return nil, err
	}
	fromID, err := Command(from.Addr(), "CLUSTER", "MYID")
	if err != nil {
		return nil, err
	}
	toID, err := Command(to.Addr(), "CLUSTER", "MYID")
	if err != nil {
		return nil, err
	}
	if _, err := Command(to.Addr(), "CLUSTER", "SETSLOT", slot, "IMPORTING", fromID); err != nil {
		return nil, err
	}
	if _, err := Command(from.Addr(), "CLUSTER", "SETSLOT", slot, "MIGRATING", toID); err != nil {
		return nil, err
	}
	return &Migration{slot: slot, from: from, to: to}, nil
}

// Marked fails unless the source lists the slot as migrating, as
// CLUSTER NODES shows it ("[slot->-destination]").
func (m *Migration) Marked() error {
	nodes, err := Command(m.from.Addr(), "CLUSTER", "NODES")
	if err != nil {
		return err
	}
	if !strings.Contains(nodes, "["+m.slot+"->-") {
		return fmt.Errorf("slot %s is not migrating on %s: %s", m.slot, m.from.Addr(), nodes)
	}
	return nil
}

// Cancel ends the migration with no key moved: the slot is stable on its
// source again.
func (m *Migration) Cancel() error {
	if _, err := Command(m.from.Addr(), "CLUSTER", "SETSLOT", m.slot, "STABLE"); err != nil {
		return err
	}
	_, err := Command(m.to.Addr(), "CLUSTER", "SETSLOT", m.slot, "STABLE")
	return err
}

package host

import (
	"github.com/cellhost/cellhost/jsapi"
)

// ObjectState is what the dev inspector shows of a resident object beside
// its database: its WebSockets and its armed alarm.
type ObjectState struct {
	Resident bool
	// WebSockets are the sockets the object accepted: hibernatable ones
	// (ctx.acceptWebSocket) first, then those accepted with ws.accept().
	WebSockets []jsapi.WebSocketInfo
	// AlarmDueMs is when the armed alarm timer fires (0: none armed);
	// AlarmRunning is set while alarm() runs.
	AlarmDueMs   int64
	AlarmRunning bool
}

// InspectObject returns the live state of object id of class on this host
// (Resident false when it is not in memory). Safe from any goroutine.
func (h *Host) InspectObject(class, id string) ObjectState {
	h.mu.Lock()
	c, ok := h.cells[class+":"+id]
	h.mu.Unlock()
	if !ok {
		return ObjectState{}
	}
	ch := make(chan ObjectState, 1)
	if !c.s.post(func() {
		st := ObjectState{Resident: c.inst != nil, WebSockets: c.sockets.set.Describe(), AlarmRunning: c.alarmRunning}
		if c.alarmCancel != nil {
			st.AlarmDueMs = c.alarmDue
		}
		for k := range c.sockets.conns {
			if k.ws != nil && k.ws.Accepted() && !k.ws.Hibernatable() {
				st.WebSockets = append(st.WebSockets, k.ws.Info())
			}
		}
		ch <- st
	}) {
		return ObjectState{}
	}
	return <-ch
}

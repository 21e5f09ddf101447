"""Bounded meetings: calling, attendance and the idle sweep (lifecycle), talk and votes
(talk), the termination handshake (end), and the read views the planner and CLI share (views)."""

"""Many people at once: seats taken, votes cast, hands raised and seats freed from many threads keep the rules."""

from __future__ import annotations

import random
import threading
from collections import Counter

from ui.classroom import Conflict, Forbidden, Rooms
from ui.classroom.testing import classroom

SEATS = {f"Agent{i}": "debater" for i in range(5)}


def run_together(n, work):
    """``work(i)`` in ``n`` threads released at once; what each returned (or raised)."""
    barrier = threading.Barrier(n)
    results: list[object] = [None] * n

    def one(i):
        barrier.wait()
        try:
            results[i] = work(i)
        except Exception as error:  # kept, to count refusals
            results[i] = error

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    return results


def check_invariants(room):
    """Every held seat has one holder who holds that seat only; records agree with the seats."""
    with room._changed:
        people = list(room._people.values())
        seated = [p for p in people if p.seat is not None]
        assert len({p.seat for p in seated}) == len(seated)
        for seat in room._seats.values():
            if seat.holder is not None:
                assert seat.holder.seat == seat.agent and seat.holding is not None
                assert room._holdings[seat.holding].name == seat.holder.name
            else:
                assert not any(p.seat == seat.agent for p in people)
        open_holdings = [h for h in room._holdings if h.to_turn is None]
        assert len(open_holdings) == len(seated)
        assert len({p.id for p in people}) == len(people) == len(room._by_digest)


def test_forty_people_racing_for_five_seats():
    room, host, _ = classroom(SEATS)
    for agent in SEATS:
        room.open_seat(host, agent)
    results = run_together(40, lambda i: room.take_seat(f"Agent{i % 5}", f"Student {i}"))
    tokens = [r for r in results if isinstance(r, str)]
    refused = [r for r in results if isinstance(r, Exception)]
    assert len(tokens) == 5 and len(refused) == 35 and all(isinstance(r, Conflict) for r in refused)
    assert {room.identify(t).seat for t in tokens} == set(SEATS)
    check_invariants(room)


def test_two_hundred_members_voting_at_once_count_once_each():
    room, _, _ = classroom()
    members = [room.join(f"Viewer {i}") for i in range(200)]
    room.open_poll("round 1", ["A", "B", "C"])
    rng = random.Random(7)
    plans = [[rng.choice("ABC") for _ in range(5)] for _ in members]

    def vote(i):
        for choice in plans[i]:
            room.vote(members[i], "round 1", choice)

    assert not any(run_together(200, vote))
    tally = room.tally("round 1")
    expected = Counter(plan[-1] for plan in plans)
    assert tally.total == 200 and tally.counts == (expected["A"], expected["B"], expected["C"])


def test_joining_seating_freeing_and_expiring_at_once_keeps_the_rules():
    room, host, clock = classroom(SEATS, grace_s=5)
    for agent in SEATS:
        room.open_seat(host, agent, fallback="pass")
    members = [room.join(f"M{i}") for i in range(30)]
    room.open_poll("round 1", ["yes", "no"])

    def churn(i):
        rng = random.Random(i)
        token = members[i]
        for _ in range(40):
            agent = f"Agent{rng.randrange(5)}"
            step = rng.randrange(7)
            try:
                if step == 0:
                    room.take_seat(agent, token=token)
                elif step == 1:
                    room.leave_seat(token)
                elif step == 2:
                    room.free_seat(host, agent, fallback=rng.choice(["pass", "model"]))
                    room.open_seat(host, agent)
                elif step == 3:
                    room.vote(token, "round 1", rng.choice(["yes", "no"]))
                elif step == 4:
                    room.raise_hand(token)
                elif step == 5:
                    room.disconnect(token)
                    clock.advance(1)  # the shared clock moves: some grace periods lapse under the others' feet
                else:
                    room.heartbeat(token)
            except (Conflict, Forbidden):
                pass
            check_invariants(room)

    assert not any(run_together(30, churn))
    check_invariants(room)
    tally = room.tally("round 1")
    assert tally.total <= 30
    record = room.close()
    assert all(h.to_turn is not None for h in record.seats)


def test_rooms_created_at_once_get_distinct_codes():
    rooms = Rooms()
    results = run_together(50, lambda i: classroom(debate_id=f"debate-{i}", rooms=rooms)[0].join_code)
    assert len(set(results)) == 50 and len(rooms) == 50

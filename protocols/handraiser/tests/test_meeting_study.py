"""Meeting Scheduling in the study harness: the data set, a scripted comparison of policies, HandRaiser's report."""

from __future__ import annotations

from experiments.cli import main as experiments_main
from experiments.compare import CompareSpec
from experiments.compare_report import write_report
from experiments.extensions import DataRequest, datasets
from protocols.handraiser.meeting.cases import SUCCESS, case_in, committed
from protocols.handraiser.scheduling import dump_cases
from storage import Store


def test_the_data_set_is_a_seeded_sample_of_the_cases_each_question_carrying_its_case(tmp_path):
    dataset = next(d for d in datasets() if d.name == "scheduling")
    spec = CompareSpec(experiment_id="ms", systems=("scheduling/generic",), mmlu=0, strategyqa=0)
    items = dataset.items(DataRequest(5, 0, None, spec))
    assert [i.key for i in items] == [i.key for i in dataset.items(DataRequest(5, 0, None, spec))]
    assert len({i.key for i in items}) == 5 and all(i.key.startswith("scheduling:meeting-") for i in items)
    for found in items:
        case = case_in(found.question)
        assert case is not None and found.key == f"scheduling:{case.id}" and case == committed()[case.id]
        assert found.question.answer == SUCCESS and not found.question.options
        assert case.people[0].location not in found.question.text  # the public statement holds nothing private
    assert len(dataset.items(DataRequest(1_000, 0, None, spec))) == 50
    path = tmp_path / "cases.jsonl"
    dump_cases([committed()["meeting-0007"]], path)
    (only,) = dataset.items(DataRequest(5, 0, str(path), spec))
    assert only.key == "scheduling:meeting-0007"


def test_policies_as_systems_on_scheduling_cases_in_the_handraiser_report(tmp_path):
    db = tmp_path / "study.sqlite3"
    argv = [
        "compare", "--backend", "scripted", "--systems", "scheduling/generic,scheduling/prompted",
        "--data", "scheduling=2", "--mmlu", "0", "--strategyqa", "0", "--db", str(db), "--experiment", "x",
    ]  # fmt: skip
    assert experiments_main(argv) == 0
    store = Store(db)
    try:
        report = write_report(store, "x", tmp_path / "report").read_text()
    finally:
        store.close()
    own = report[report.index("## HandRaiser") :]
    rows: dict[str, str] = {}
    for line in own.splitlines():  # the first table's rows (the histogram's come after)
        if line.startswith("| scheduling/"):
            rows.setdefault(line.split("|")[1].strip(), line)
    assert {"scheduling/generic", "scheduling/prompted"} <= set(rows)
    assert all("100.0% (n=2" in row for row in rows.values())  # the scripted traveler submits the reference
    cost = lambda line: float(line.split("|")[3].split("(")[0].replace(",", ""))  # noqa: E731
    assert cost(rows["scheduling/prompted"]) < cost(rows["scheduling/generic"])  # it cuts the planners' filler
    assert "scheduling/ Meeting Scheduling" in own

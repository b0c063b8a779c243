==== x
SELECT 1

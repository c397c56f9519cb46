-- A merchant's own screening choice per mode (D33): NULL takes the deployment's default
-- (STABLEPAY_SCREENING_MODES); a mode the operator requires is screened whatever it says.
ALTER TABLE merchants
    ADD COLUMN screening_test boolean,
    ADD COLUMN screening_live boolean;
